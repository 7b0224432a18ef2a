// bench/render-cluster (docs/benchmarks.md#render-cluster): render on several instances, as the
// tests run it (docs/render.md#several-instances): two real instances on one throwaway PostgreSQL
// and a shared ARTIFACT_DIR, behind nginx from Debian (round robin, no stickiness). In one run:
// (a) CDP round trips per second through the instance that does not own the session against
// straight to the owner (goal >= 0.8); (b) session create p50 through the balancer against
// direct; (c) render throughput of two instances (through the balancer) against one (direct), at
// c=4, with the machine's CPU use for each; (d) artifact fetch p50 from the S3 store (the s3rver
// stand-in in the root test-support/) against the shared directory, same artifact size.
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import {
  startBalancer,
  startRenderInstance,
  type RenderInstance,
  TEST_TOKEN,
} from '@havn/render/testing';
import { startS3StandIn } from '../test-support/s3-stand-in.js';
import { startPostgresCluster } from '../test-support/postgres-cluster.js';
import { countRoundTrips } from './lib/cdp-round-trips.js';
import { percentile, printSummary, printTable } from './lib/harness.js';

const ROUND_TRIP_MS = 4000;
const ROUNDS = 8;
const WINDOW = 64;
const CREATES = 20;
const RENDERS = 40;
const CONCURRENCY = 4;
const FETCHES = 60;

const auth = { authorization: `Bearer ${TEST_TOKEN}` };
const jsonHeaders = { ...auth, 'content-type': 'application/json' };

/** Busy and total jiffies of the whole machine, from /proc/stat's first line. */
function cpuTimes(): { busy: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
  const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] =
    line.trim().split(/\s+/).slice(1).map(Number);
  const busy = user + nice + system + irq + softirq + steal;
  return { busy, total: busy + idle + iowait };
}

async function createSession(base: string): Promise<{ id: string; cdpUrl: string; ms: number }> {
  const t0 = performance.now();
  const res = await fetch(`${base}/v1/sessions`, {
    method: 'POST',
    headers: jsonHeaders,
    body: '{}',
  });
  const ms = performance.now() - t0;
  if (res.status !== 201) throw new Error(`POST /v1/sessions at ${base} answered ${res.status}`);
  const { id, cdpUrl } = (await res.json()) as { id: string; cdpUrl: string };
  return { id, cdpUrl, ms };
}

async function deleteSession(base: string, id: string): Promise<void> {
  const res = await fetch(`${base}/v1/sessions/${id}`, { method: 'DELETE', headers: auth });
  if (res.status !== 200) throw new Error(`DELETE session answered ${res.status}`);
}

async function render(base: string, i: number): Promise<{ url: string; bytes: number }> {
  const res = await fetch(`${base}/v1/render`, {
    method: 'POST',
    headers: jsonHeaders,
    body: JSON.stringify({
      html: `<body style="margin:0;background:linear-gradient(#369,#fc3)"><h1>render ${String(i)}</h1></body>`,
    }),
  });
  if (res.status !== 200) throw new Error(`render at ${base} answered ${res.status}`);
  return ((await res.json()) as { artifact: { url: string; bytes: number } }).artifact;
}

/** RENDERS renders, CONCURRENCY at a time, at `base`: renders a second and machine CPU busy. */
async function throughput(base: string): Promise<{ perSecond: number; busy: number }> {
  let next = 0;
  const cpu0 = cpuTimes();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < RENDERS) await render(base, next++);
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const cpu1 = cpuTimes();
  return {
    perSecond: RENDERS / seconds,
    busy: (cpu1.busy - cpu0.busy) / (cpu1.total - cpu0.total),
  };
}

async function fetchTimes(base: string, url: string): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(`${base}${url}`, { headers: auth });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`artifact fetch answered ${res.status}`);
  return performance.now() - t0;
}

const dir = await mkdtemp(join(tmpdir(), 'havn-bench-cluster-'));
const postgres = await startPostgresCluster();
const s3 = await startS3StandIn();
const admin = new pg.Client({ connectionString: postgres.url });
await admin.connect();
await admin.query('create database bench_dir');
await admin.query('create database bench_s3');
await admin.end();
const instances: RenderInstance[] = [];
let balancer: { close(): Promise<void> } | undefined;
try {
  const shared = {
    DATABASE_URL: postgres.urlOf('bench_dir'),
    ARTIFACT_DIR: join(dir, 'artifacts'),
    CLUSTER_HEARTBEAT_MS: '2000',
  };
  const [a, b] = await Promise.all([
    startRenderInstance('a', { ...shared, BROWSER_UIDS: '64200-64209' }),
    startRenderInstance('b', { ...shared, BROWSER_UIDS: '64210-64219' }),
  ]);
  instances.push(a, b);
  // A third instance, alone on its own database, with its bytes in S3.
  const onS3 = await startRenderInstance('s3', {
    DATABASE_URL: postgres.urlOf('bench_s3'),
    ARTIFACT_DIR: join(dir, 'artifacts-s3'),
    ARTIFACT_STORE: `s3://${s3.bucket}/bench`,
    BROWSER_UIDS: '64220-64229',
    ...s3.env,
  });
  instances.push(onS3);
  const lb = await startBalancer([a, b].map((i) => `127.0.0.1:${String(i.port)}`));
  balancer = lb;

  // (a) CDP round trips: a session owned by a, driven at a and through b.
  const owned = await createSession(a.base);
  const atOwner = owned.cdpUrl;
  const throughPeer = owned.cdpUrl.replace(`:${String(a.port)}/`, `:${String(b.port)}/`);
  const cdpRows: Record<string, string | number>[] = [];
  for (const window of [1, WINDOW]) {
    for (const url of [atOwner, throughPeer]) await countRoundTrips(url, 300, window);
    let owner = 0;
    let peer = 0;
    const slice = ROUND_TRIP_MS / ROUNDS;
    for (let round = 0; round < ROUNDS; round++) {
      owner += (await countRoundTrips(atOwner, slice, window)) / (ROUND_TRIP_MS / 1000);
      peer += (await countRoundTrips(throughPeer, slice, window)) / (ROUND_TRIP_MS / 1000);
    }
    cdpRows.push({
      'in flight': window,
      'owner rt/s': Math.round(owner),
      'non-owner rt/s': Math.round(peer),
      'non-owner/owner': peer / owner,
    });
  }
  await deleteSession(a.base, owned.id);

  // (b) session create, alternating direct (a) and through the balancer.
  const direct: number[] = [];
  const balanced: number[] = [];
  for (let i = 0; i < CREATES; i++) {
    for (const [base, into] of [
      [a.base, direct],
      [lb.base, balanced],
    ] as const) {
      const created = await createSession(base);
      into.push(created.ms);
      await deleteSession(base, created.id);
    }
  }

  // (c) render throughput, warmed, one instance then two, then one again (the machine drifts).
  await throughput(lb.base);
  const one1 = await throughput(a.base);
  const two = await throughput(lb.base);
  const one2 = await throughput(a.base);
  const one = {
    perSecond: (one1.perSecond + one2.perSecond) / 2,
    busy: (one1.busy + one2.busy) / 2,
  };

  // (d) artifact fetch: the same page rendered on the directory instance and on the S3 one.
  const onDir = await render(a.base, 0);
  const inS3 = await render(onS3.base, 0);
  const dirTimes: number[] = [];
  const s3Times: number[] = [];
  for (let i = 0; i < FETCHES; i++) {
    dirTimes.push(await fetchTimes(a.base, onDir.url));
    s3Times.push(await fetchTimes(onS3.base, inS3.url));
  }

  const [seq, piped] = cdpRows;
  const createRatio = percentile(balanced, 50) / percentile(direct, 50);
  const renderRatio = two.perSecond / one.perSecond;
  const fetchRatio = percentile(s3Times, 50) / percentile(dirTimes, 50);
  printTable(
    "CDP round trips, Runtime.evaluate('1'): straight to the owner, through its peer",
    cdpRows,
  );
  printTable(`session create (POST /v1/sessions → 201), ${String(CREATES)} each, ms`, [
    {
      path: 'direct',
      p50: Math.round(percentile(direct, 50)),
      p95: Math.round(percentile(direct, 95)),
    },
    {
      path: 'balancer',
      p50: Math.round(percentile(balanced, 50)),
      p95: Math.round(percentile(balanced, 95)),
    },
  ]);
  printTable(
    `render throughput, ${String(RENDERS)} PNGs at c=${String(CONCURRENCY)}, MAX_CONCURRENCY=2 an instance`,
    [
      {
        instances: 1,
        'renders/s': one.perSecond,
        'machine CPU busy': `${Math.round(one.busy * 100)}%`,
      },
      {
        instances: 2,
        'renders/s': two.perSecond,
        'machine CPU busy': `${Math.round(two.busy * 100)}%`,
      },
    ],
  );
  printTable(
    `artifact fetch, ${String(FETCHES)} each, ${String(onDir.bytes)} and ${String(inS3.bytes)} bytes, ms`,
    [
      { store: 'directory', p50: percentile(dirTimes, 50), p95: percentile(dirTimes, 95) },
      { store: 'S3 (s3rver)', p50: percentile(s3Times, 50), p95: percentile(s3Times, 95) },
    ],
  );
  printSummary(
    'render-cluster',
    `CDP non-owner/owner ${Number(seq?.['non-owner/owner']).toFixed(2)} sequential, ` +
      `${Number(piped?.['non-owner/owner']).toFixed(2)} with ${String(WINDOW)} in flight (goal >= 0.8); ` +
      `create p50 balancer/direct ${createRatio.toFixed(2)}; ` +
      `renders two/one instances ${renderRatio.toFixed(2)} (CPU busy ${Math.round(one.busy * 100)}% and ${Math.round(two.busy * 100)}%); ` +
      `artifact fetch p50 S3/directory ${fetchRatio.toFixed(2)}`,
  );
} finally {
  await balancer?.close();
  await Promise.all(instances.map((i) => i.stop('SIGTERM')));
  await s3.close();
  postgres.stop();
  await rm(dir, { recursive: true, force: true });
}
