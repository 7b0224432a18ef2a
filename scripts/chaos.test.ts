import { expect, test } from 'vitest';
import { runChaos } from '../bench/lib/chaos.js';

// The chaos run's properties on every change (docs/operations.md#a-chaos-run): 60 s of render and
// forms load with faults injected (the render browser killed, PostgreSQL connections terminated,
// the artifact disk filled and freed, the webhook receiver hanging), then drained. It asserts what
// users would notice, not speed: every request answered with an honest status within the
// services' bounds, no acknowledged submission missing, every one delivered by webhook.

/** Each service's own bounds: QUEUE_TIMEOUT_MS + RENDER_TIMEOUT_MS for render, 10 s for forms. */
const LONGEST_WAIT_MS = 45_000;
const HONEST: Record<string, readonly string[]> = {
  render: ['200', '502', '503', '504', '507'],
  forms: ['200', '503'],
};

test(
  'a 60-second chaos run: every request answered, nothing acknowledged lost or undelivered',
  { timeout: 240_000 },
  async () => {
    const report = await runChaos({ durationMs: 60_000 });
    const summary = JSON.stringify(report);
    for (const [outcome, count] of Object.entries(report.outcomes)) {
      const [service = '', status = ''] = outcome.split(' ');
      expect(HONEST[service], `${outcome} × ${String(count)}: ${summary}`).toContain(status);
    }
    // Both services kept serving through it.
    expect(report.outcomes['render 200'], summary).toBeGreaterThan(0);
    expect(report.outcomes['forms 200'], summary).toBeGreaterThan(0);
    for (const kind of [
      'browser killed',
      'connections terminated',
      'disk full',
      'receiver hangs',
    ]) {
      expect(report.faults[kind], summary).toBeGreaterThan(0);
    }
    expect(report.longestWaitMs, summary).toBeLessThan(LONGEST_WAIT_MS);
    expect(report.missing, summary).toBe(0);
    expect(report.undelivered, summary).toBe(0);
    expect(report.delivered, summary).toBe(report.stored);
    for (const rss of Object.values(report.rssMiB)) expect(rss.end, summary).toBeLessThan(1024);
  },
);
