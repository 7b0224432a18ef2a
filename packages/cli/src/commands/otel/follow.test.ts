// --follow against the fake, which here plays a store that rows reach late: each answer shows the
// rows visible by then, and honours the poll query's ingestion-time and timestamp bounds.
import { describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../../test-support/fake-app-insights.js';
import { table, upstreamError } from '../../test-support/fake-app-insights.js';
import { havn, startHavn } from '../../test-support/run-havn.js';
import { useSignedInFake } from '../../test-support/signed-in-fake.js';

interface StoredRow {
  readonly message: string;
  /** Offsets from the start of the test, ms. */
  readonly timestamp: number;
  readonly ingested: number;
  /** The request (0 = the first query) from which the row is visible. */
  readonly visibleFrom: number;
}

const MIN = 60_000;
const COLUMNS = [
  ['timestamp', 'datetime'],
  ['cloud_RoleName', 'string'],
  ['type', 'string'],
  ['message', 'string'],
  ['operation_Id', 'string'],
  ['itemId', 'string'],
  ['_ingested', 'datetime'],
] as const;

const ctx = useSignedInFake();
const time = ctx.name('timestamp');

/** Serves `rows` as a store would at the n-th request. */
function store(rows: readonly StoredRow[], now: number): (r: RecordedRequest) => { body: unknown } {
  let n = 0;
  return (request) => {
    const query = String(request.body.query);
    const k = n++;
    const iso = (offset: number) => new Date(now + offset).toISOString();
    let visible = rows.filter((r) => r.visibleFrom <= k);
    if (query.includes(`| order by ${time} desc`)) {
      visible = visible.filter((r) => r.timestamp > -60 * MIN);
      visible.sort((a, b) => b.timestamp - a.timestamp);
    } else {
      const after = Date.parse(/_ingested > datetime\(([^)]+)\)/.exec(query)?.[1] ?? '') - now;
      const since =
        Date.parse(new RegExp(`${time} >= datetime\\(([^)]+)\\)`).exec(query)?.[1] ?? '') - now;
      visible = visible.filter((r) => r.ingested > after && r.timestamp >= since);
      visible.sort((a, b) => a.ingested - b.ingested);
    }
    return {
      body: table(
        COLUMNS,
        visible.map((r) => [
          iso(r.timestamp),
          'checkout',
          'E',
          r.message,
          'op',
          `item-${r.message}`,
          iso(r.ingested),
        ]),
      ),
    };
  };
}

/** Waits until `done()` holds, checking every 50 ms, for at most 20 s. */
async function until(done: () => boolean): Promise<void> {
  for (let waited = 0; !done(); waited += 50) {
    if (waited > 20_000) throw new Error('condition not met within 20 s');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const messages = (stdout: string) =>
  stdout
    .trimEnd()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => (JSON.parse(l) as { message: string }).message);

describe('havn otel errors --follow', () => {
  it('prints late rows once each, no duplicates and no gaps, and Ctrl-C exits 0', async () => {
    const now = Date.now();
    ctx.fake.handler = store(
      [
        { message: 'a', timestamp: -50 * MIN, ingested: -49 * MIN, visibleFrom: 0 },
        { message: 'b', timestamp: -10 * MIN, ingested: -9 * MIN, visibleFrom: 0 },
        { message: 'c', timestamp: -1 * MIN, ingested: -30_000, visibleFrom: 1 },
        // Arrives late: its timestamp is 40 minutes old, its ingestion new.
        { message: 'late', timestamp: -40 * MIN, ingested: -20_000, visibleFrom: 2 },
        // Ingested before `late` but visible to queries only afterwards: the re-read overlap
        // finds it; a watermark taken at face value would have skipped it.
        { message: 'slow', timestamp: -2 * MIN, ingested: -45_000, visibleFrom: 3 },
        { message: 'd', timestamp: 0, ingested: 5_000, visibleFrom: 3 },
        // Ingested now but from before the window: not part of what was asked for.
        { message: 'too-old', timestamp: -120 * MIN, ingested: -10_000, visibleFrom: 2 },
      ],
      now,
    );
    const follow = startHavn(
      ['otel', 'errors', '--follow', '--interval', '0.5s', '--format', 'jsonl', '-v'],
      { configDir: ctx.configDir },
    );
    await follow.waitFor((out) => out.includes('"message":"d"'));
    // Two more polls that re-read the overlap and must print nothing new.
    const polls = ctx.fake.requests.length;
    await until(() => ctx.fake.requests.length >= polls + 2);
    const code = await follow.stop('SIGINT');
    expect(code).toBe(0);
    expect(messages(follow.stdout())).toEqual(['a', 'b', 'c', 'late', 'slow', 'd']);
    const poll = ctx.fake.requests[1]!.body;
    expect(poll.timespan).toBeUndefined();
    expect(String(poll.query)).toContain('| extend _ingested = ingestion_time()');
    expect(String(poll.query)).toContain(`| order by _ingested asc, ${time} asc`);
    expect(follow.stderr()).toContain('Following every 0.5 s (Ctrl-C stops), polling with:');
  });

  it('table format: one line per row as it arrives; a failing poll is retried, not fatal', async () => {
    const now = Date.now();
    const rows = store(
      [
        { message: 'first', timestamp: -5 * MIN, ingested: -4 * MIN, visibleFrom: 0 },
        { message: 'second', timestamp: -1000, ingested: 0, visibleFrom: 0 },
      ],
      now,
    );
    let n = 0;
    ctx.fake.handler = (r) => {
      n += 1;
      if (n === 1) return { body: table(COLUMNS, []) };
      if (n === 2) return { status: 503, body: upstreamError('ServiceUnavailable', 'busy') };
      return rows(r);
    };
    const follow = startHavn(['otel', 'errors', '-f', '--interval', '0.5s'], {
      configDir: ctx.configDir,
    });
    await follow.waitFor((out) => out.includes('second'));
    expect(await follow.stop()).toBe(0);
    const lines = follow.stdout().trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d {2}checkout {2}E {2}first {2}op$/);
    expect(follow.stderr()).toContain('No exceptions in the last 1 hour yet; waiting');
    expect(follow.stderr()).toContain(
      `Warning: ${ctx.facts.service} failed (503 ServiceUnavailable: busy).`,
    );
  });

  it('logs and traces follow too', async () => {
    for (const command of ['logs', 'traces']) {
      ctx.fake.reset();
      const follow = startHavn(['otel', command, '--follow', '--interval', '0.5'], {
        configDir: ctx.configDir,
      });
      await until(() => ctx.fake.requests.length >= 2);
      expect(await follow.stop()).toBe(0);
      expect(String(ctx.fake.requests[1]?.body.query)).toContain('| where _ingested > datetime(');
    }
  });

  it.each([
    [['--follow', '--format', 'Json'], 'use --format Jsonl'],
    [['--interval', '5s'], '--interval applies only with --follow.'],
    [['-f', '--from', '2h', '--to', '1h'], '--follow runs until Ctrl-C, so it takes no --to.'],
    [['--follow', '--interval', '0.1s'], '--interval must be a number of seconds or minutes'],
    [['--follow', '--interval', 'often'], '--interval must be'],
  ])('refuses %j with exit 2', async (args, message) => {
    const r = await havn(['otel', 'errors', ...args], { configDir: ctx.configDir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect(ctx.fake.requests).toHaveLength(0);
  });
});
