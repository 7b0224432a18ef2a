// `npm run bench -- chaos`: mixed render and forms load for CHAOS_SECONDS (600 by default) with
// faults injected at random (docs/operations.md#a-chaos-run); prints what users would notice and
// exits 1 when an acknowledged submission is missing or its webhook never arrived.
import { runChaos } from './lib/chaos.js';

const seconds = Number(process.env.CHAOS_SECONDS ?? 600);
console.log(`chaos run: ${String(seconds)} s of load with faults, then drain`);
const report = await runChaos({
  durationMs: seconds * 1000,
  log: (line) => {
    console.log(`  ${new Date().toISOString().slice(11, 19)} ${line}`);
  },
});

console.log('\nrequests by outcome:');
for (const [outcome, count] of Object.entries(report.outcomes).sort()) {
  console.log(`  ${outcome.padEnd(22)} ${String(count)}`);
}
console.log(`faults injected: ${JSON.stringify(report.faults)}`);
console.log(`longest wait for an answer: ${String(report.longestWaitMs)} ms`);
console.log(`acknowledged submissions: ${String(report.acknowledged)}`);
console.log(`acknowledged submissions missing afterwards: ${String(report.missing)} (must be 0)`);
console.log(
  `webhooks delivered (distinct ids): ${String(report.delivered)} for ${String(report.stored)} stored submissions (${String(report.acknowledged)} acknowledged; ${String(report.undelivered)} acknowledged never delivered), drained in ${String(report.drainedInMs)} ms`,
);
for (const [service, rss] of Object.entries(report.rssMiB)) {
  console.log(
    `RSS of ${service}: ${String(rss.start)} MiB at start, ${String(rss.end)} MiB at end`,
  );
}
const noAnswer = Object.entries(report.outcomes).some(([k]) => k.endsWith('no answer'));
const held =
  report.missing === 0 &&
  report.undelivered === 0 &&
  report.delivered === report.stored &&
  !noAnswer;
process.exit(held ? 0 : 1);
