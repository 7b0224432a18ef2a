// bench forms-ingest (issue 5): durable ingest against a bare Fastify route, at concurrency 32 for
// 10 s each, with autocannon in this process and each server in a child process of its own.
// (a) the built forms server: origin gate, rate limit off, group-committed SQLite (WAL,
//     synchronous=FULL), one webhook configured to a receiver on loopback;
// (b) a bare Fastify route that parses the same JSON and answers 200 without storing.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { percentile, printSummary, printTable } from './lib/harness.js';

interface CannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}
type Cannon = (opts: Record<string, unknown>) => Promise<CannonResult>;

const require = createRequire(import.meta.url);
const root = fileURLToPath(new URL('..', import.meta.url));
const duration = Number(process.env.BENCH_DURATION ?? 10);
const connections = 32;
const token = 'bench-admin-token';
const origin = 'https://www.example.com';

// A realistic ~1 KiB submission of the documented contact form.
const body = JSON.stringify({
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  company: 'Analytical Engines Ltd',
  topic: 'sales',
  seats: 25,
  start: '2026-12-01',
  terms: true,
  message:
    'Hello, we would like to collect feedback from our customers after each support call and ' +
    'route it to our CRM through a webhook. Could you tell us how the retention of answers works, ' +
    'whether answers can be exported to CSV for the quarterly review, and whether push ' +
    'notifications work on phones? We expect a few thousand answers a month, peaking after ' +
    'newsletters. We also need the raw body of each submission kept untouched for our audit. ' +
    'Thanks a lot, and looking forward to hearing from you. '.repeat(6),
  submitFields: { source: 'website', campaign: 'winter-2026', _gotcha: '' },
});

async function baselineServer(): Promise<void> {
  const { default: Fastify } = await import('fastify');
  const app = Fastify();
  app.post('/submit', (request) => {
    const parsed = request.body as Record<string, unknown>;
    return { status: 'received', id: String(Object.keys(parsed).length) };
  });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  console.log(JSON.stringify({ url }));
}

function startChild(
  args: string[],
  env: Record<string, string>,
): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /"url":"(http:\/\/[^"]+)"/.exec(out);
      if (m?.[1]) resolve({ child, url: m[1] });
    });
    child.once('exit', (code) => {
      reject(new Error(`child exited (${String(code)})`));
    });
  });
}

type SqliteFile = {
  pragma(s: string): unknown;
  exec(s: string): unknown;
  prepare(s: string): { run(...a: unknown[]): unknown; pluck(): { get(): unknown } };
  close(): void;
};
const openSqlite = (file: string, options?: { readonly: boolean }): SqliteFile =>
  new (require('better-sqlite3') as new (f: string, o?: { readonly: boolean }) => SqliteFile)(
    file,
    options,
  );

/** The disk's own floor: one synced SQLite commit (WAL, synchronous=FULL) of a 1 KiB row. */
function syncLatency(dir: string): { p50: number; p99: number } {
  const db = openSqlite(join(dir, 'sync-probe.sqlite'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec('create table t (a text)');
  const insert = db.prepare('insert into t values (?)');
  const times: number[] = [];
  for (let i = 0; i < 100; i++) {
    const t0 = performance.now();
    insert.run('x'.repeat(1024));
    times.push(performance.now() - t0);
  }
  db.close();
  return { p50: percentile(times, 50), p99: percentile(times, 99) };
}

/**
 * How many submissions the server has stored, read from its database: autocannon's totals leave
 * out the requests still in flight when a run's time is up, which the server stores all the same.
 */
function submissionCounter(dir: string): { count: () => number; close: () => void } {
  const db = openSqlite(join(dir, 'forms.sqlite'), { readonly: true });
  const query = db.prepare('select count(*) from submissions').pluck();
  return {
    count: () => Number(query.get()),
    close: () => {
      db.close();
    },
  };
}

/** The measured run, after a warm-up. */
async function load(url: string, headers: Record<string, string>): Promise<CannonResult> {
  const autocannon = require('autocannon') as Cannon;
  const opts = { url, method: 'POST', headers, body, connections, pipelining: 1 };
  await autocannon({ ...opts, duration: 2 });
  return autocannon({ ...opts, duration });
}

async function main(): Promise<void> {
  if (process.argv.includes('--baseline-server')) {
    await baselineServer();
    return;
  }
  // Each submission's webhook keeps its id across attempts: distinct ids count the submissions
  // delivered, the rest are repeats.
  let webhooks = 0;
  const delivered = new Set<string>();
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      webhooks++;
      delivered.add(String(req.headers['webhook-id']));
      res.end('ok');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const receiverUrl = `http://127.0.0.1:${String((receiver.address() as AddressInfo).port)}/hook`;

  const dir = mkdtempSync(join(tmpdir(), 'havn-bench-forms-'));
  const tsx = join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs');
  const baseline = await startChild([tsx, fileURLToPath(import.meta.url), '--baseline-server'], {});
  const forms = await startChild([join(root, 'packages/forms/dist/main.js')], {
    PORT: '0',
    USER_DATA_DIR: dir,
    FORM_ADMIN_TOKEN: token,
    ALLOW_PRIVATE_WEBHOOKS: '1',
    INGEST_RATE_LIMIT_PER_MINUTE: '0',
    LOG_LEVEL: 'info',
    WEB_DIR: join(dir, 'none'),
  });
  try {
    const admin = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    await fetch(`${forms.url}/api/orgs`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ slug: 'bench', name: 'Bench' }),
    });
    const put = await fetch(`${forms.url}/api/orgs/bench/forms/contact`, {
      method: 'PUT',
      headers: admin,
      body: JSON.stringify({
        name: 'Contact',
        allowedOrigins: [origin],
        webhooks: [{ url: receiverUrl, secret: 'whsec_YmVuY2gtc2VjcmV0' }],
        definition: {
          intro: { title: 'Contact' },
          questions: [{ logicalName: 'name', type: 'text', label: 'Name' }],
        },
      }),
    });
    if (put.status !== 200) throw new Error(`form setup failed: ${await put.text()}`);

    const sync = syncLatency(dir);
    console.log(
      `one synced commit on this disk (the floor under every durable answer): ` +
        `p50 ${sync.p50.toFixed(1)} ms, p99 ${sync.p99.toFixed(1)} ms`,
    );
    const json = { 'content-type': 'application/json', origin };
    const b = await load(`${baseline.url}/submit`, json);
    const a = await load(`${forms.url}/api/orgs/bench/forms/contact/submissions`, json);
    const row = (name: string, r: CannonResult) => ({
      subject: name,
      'req/s': Math.round(r.requests.average),
      'p50 ms': r.latency.p50,
      'p99 ms': r.latency.p99,
      'non-2xx': r.non2xx,
      errors: r.errors + r.timeouts,
    });
    printTable(
      `forms ingest, ${String(connections)} connections, ${String(duration)} s, ${String(Buffer.byteLength(body))} B body`,
      [row('(a) durable ingest + 1 webhook', a), row('(b) bare Fastify JSON route', b)],
    );
    // Delivery yields to an ingest burst, so say how long the webhooks lag behind it: every
    // stored submission's webhook must arrive, timed from the end of the run.
    const deliveredDuringRun = delivered.size;
    const submissions = submissionCounter(dir);
    const drainStart = performance.now();
    let stored = submissions.count();
    while (delivered.size < stored && performance.now() - drainStart < 120_000) {
      await new Promise((r) => setTimeout(r, 50));
      stored = submissions.count();
    }
    submissions.close();
    const drainS = (performance.now() - drainStart) / 1000;
    console.log(
      `\nwebhooks: ${String(deliveredDuringRun)} received by the end of the run; ` +
        `${String(delivered.size)} of ${String(stored)} stored submissions delivered ` +
        `${drainS.toFixed(1)} s after it (${String(webhooks - delivered.size)} repeat deliveries)`,
    );
    const ratio = a.requests.average / b.requests.average;
    printSummary(
      'forms-ingest',
      `durable ${String(Math.round(a.requests.average))} req/s (goal >= 2000), p99 ${String(a.latency.p99)} ms (goal < 50), ` +
        `ratio to bare Fastify ${ratio.toFixed(2)} (goal >= 0.3)`,
    );
  } finally {
    forms.child.kill('SIGTERM');
    baseline.child.kill('SIGTERM');
    receiver.close();
    await new Promise((r) => setTimeout(r, 500));
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
