// bench forms-ingest: durable ingest against a bare Fastify route, at concurrency 32 for 10 s each,
// with autocannon in this process and each server in a child process of its own.
// (a) the built forms server: origin gate, rate limit off, group-committed SQLite (WAL,
//     synchronous=FULL), one webhook configured to a receiver on loopback;
// (b) the same on PostgreSQL (a throwaway cluster started here, fsync and synchronous_commit on),
//     one instance;
// (c) two instances on one PostgreSQL database, 16 connections to each;
// (d) a bare Fastify route that parses the same JSON and answers 200 without storing;
// (e) the built forms server on SQLite again, each submission a multipart post with one 100 KB
//     PDF for a `file` question, against (a) without files;
// (f) the floor under (e): the bare Fastify server writing the same post's bytes to a file of
//     their own, hashed (SHA-256) and synced before it answers, with no parsing and no database.
// Each durable subject's webhooks are drained before the next one runs, so a backlog never takes
// CPU from the next measurement; the CPU each process used is read from /proc.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createWriteStream, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { startPostgresCluster, type PostgresCluster } from '../test-support/postgres-cluster.js';
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

// (e): the same form's answers with a 100 KB PDF, as a browser sends them (docs/forms.md#file-uploads).
const boundary = '----havnbench7MA4YWxkTrZu0gW';
const withFile = Buffer.concat([
  Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\nAda Lovelace\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="message"\r\n\r\n${'Hello. '.repeat(100)}\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="cv"; filename="cv.pdf"\r\n` +
      'Content-Type: application/pdf\r\n\r\n%PDF-1.4\n',
  ),
  Buffer.alloc(100 * 1000 - 9, 0x20),
  Buffer.from(`\r\n--${boundary}--\r\n`),
]);

async function baselineServer(): Promise<void> {
  const { default: Fastify } = await import('fastify');
  const app = Fastify();
  app.post('/submit', (request) => {
    const parsed = request.body as Record<string, unknown>;
    return { status: 'received', id: String(Object.keys(parsed).length) };
  });
  // (f): the body streamed to a synced file of its own, as a file upload's bytes must be at least.
  const files = mkdtempSync(join(tmpdir(), 'havn-bench-floor-'));
  let n = 0;
  app.addContentTypeParser('multipart/form-data', (_request, payload, done) => {
    done(null, payload);
  });
  app.post('/file', async (request) => {
    const hash = createHash('sha256');
    const out = createWriteStream(join(files, String(n++)), { flush: true });
    const body = request.body as NodeJS.ReadableStream;
    body.on('data', (chunk: Buffer) => hash.update(chunk));
    await pipeline(body, out);
    return { id: hash.digest('hex') };
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
function sqliteCounter(dir: string): () => Promise<number> {
  return () => {
    const db = openSqlite(join(dir, 'forms.sqlite'), { readonly: true });
    try {
      return Promise.resolve(Number(db.prepare('select count(*) from submissions').pluck().get()));
    } finally {
      db.close();
    }
  };
}

function postgresCounter(url: string): () => Promise<number> {
  return async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const r = await client.query<{ n: string }>('select count(*) as n from submissions');
      return Number(r.rows[0]?.n ?? 0);
    } finally {
      await client.end();
    }
  };
}

/** CPU seconds (user + system) a process has used, from /proc; 0 once it is gone. */
function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${String(pid)}/stat`, 'utf8')
      .split(') ')[1]
      ?.split(' ');
    return (Number(fields?.[11]) + Number(fields?.[12])) / 100; // clock ticks, USER_HZ = 100
  } catch {
    return 0;
  }
}

/** The processes of the PostgreSQL server (the postmaster and its backends and helpers). */
function postgresPids(): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        return readFileSync(`/proc/${d}/comm`, 'utf8').trim() === 'postgres';
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** CPU used by the given processes (and by PostgreSQL's) while `run` ran. */
async function withCpu<T>(
  pids: readonly number[],
  run: () => Promise<T>,
): Promise<{ result: T; servers: number; postgres: number; self: number }> {
  const sum = (ps: readonly number[]) => ps.reduce((t, p) => t + cpuSeconds(p), 0);
  const pgBefore = new Map(postgresPids().map((p) => [p, cpuSeconds(p)]));
  const serversBefore = sum(pids);
  const selfBefore = process.cpuUsage();
  const result = await run();
  const self = process.cpuUsage(selfBefore);
  let postgres = 0;
  for (const p of postgresPids()) postgres += cpuSeconds(p) - (pgBefore.get(p) ?? 0);
  return {
    result,
    servers: sum(pids) - serversBefore,
    postgres,
    self: (self.user + self.system) / 1e6,
  };
}

/**
 * The measured run, after a warm-up; several URLs share the connections and run together.
 * `measure` wraps the measured run alone (the CPU reading).
 */
async function load(
  urls: readonly string[],
  headers: Record<string, string>,
  measure: (run: () => Promise<CannonResult[]>) => Promise<CannonResult[]> = (run) => run(),
  payload: string | Buffer = body,
): Promise<CannonResult> {
  const autocannon = require('autocannon') as Cannon;
  const each = (url: string, seconds: number) =>
    autocannon({
      url,
      method: 'POST',
      headers,
      body: payload,
      connections: connections / urls.length,
      pipelining: 1,
      duration: seconds,
    });
  await Promise.all(urls.map((u) => each(u, 2)));
  const results = await measure(() => Promise.all(urls.map((u) => each(u, duration))));
  // Rates add up; the latencies reported are the worst instance's.
  return {
    requests: {
      average: results.reduce((t, r) => t + r.requests.average, 0),
      total: results.reduce((t, r) => t + r.requests.total, 0),
    },
    latency: {
      p50: Math.max(...results.map((r) => r.latency.p50)),
      p99: Math.max(...results.map((r) => r.latency.p99)),
    },
    non2xx: results.reduce((t, r) => t + r.non2xx, 0),
    errors: results.reduce((t, r) => t + r.errors, 0),
    timeouts: results.reduce((t, r) => t + r.timeouts, 0),
  };
}

/** A webhook receiver counting arrivals and distinct webhook ids (one per submission). */
async function startReceiver(): Promise<{
  url: string;
  delivered: Set<string>;
  arrivals: () => number;
  close: () => void;
}> {
  let arrivals = 0;
  const delivered = new Set<string>();
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      arrivals++;
      delivered.add(String(req.headers['webhook-id']));
      res.end('ok');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${String((receiver.address() as AddressInfo).port)}/hook`,
    delivered,
    arrivals: () => arrivals,
    close: () => receiver.close(),
  };
}

async function createForm(url: string, receiverUrl: string): Promise<void> {
  const admin = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  await fetch(`${url}/api/orgs`, {
    method: 'POST',
    headers: admin,
    body: JSON.stringify({ slug: 'bench', name: 'Bench' }),
  });
  const put = await fetch(`${url}/api/orgs/bench/forms/contact`, {
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
  const apply = await fetch(`${url}/api/orgs/bench/forms/apply`, {
    method: 'PUT',
    headers: admin,
    body: JSON.stringify({
      name: 'Apply',
      allowedOrigins: [origin],
      webhooks: [{ url: receiverUrl, secret: 'whsec_YmVuY2gtc2VjcmV0' }],
      definition: {
        intro: { title: 'Apply' },
        questions: [
          { logicalName: 'name', type: 'text', label: 'Name' },
          { logicalName: 'cv', type: 'file', label: 'CV', accept: ['application/pdf'] },
        ],
      },
    }),
  });
  if (apply.status !== 200) throw new Error(`form setup failed: ${await apply.text()}`);
}

/** What a subject posts: the JSON contact form, or (e) the multipart post with a file. */
interface Posted {
  form: string;
  headers: Record<string, string>;
  payload: string | Buffer;
}
const jsonPost: Posted = {
  form: 'contact',
  headers: { 'content-type': 'application/json', origin },
  payload: body,
};
const filePost: Posted = {
  form: 'apply',
  headers: {
    'content-type': `multipart/form-data; boundary=${boundary}`,
    accept: 'application/json',
    origin,
  },
  payload: withFile,
};

interface Measured {
  name: string;
  result: CannonResult;
  /** CPU µs per request of the servers, of PostgreSQL and of this process (autocannon). */
  cpu?: { servers: number; postgres: number; self: number };
  webhooks?: string;
}

/** One durable subject: its servers (sharing a database), the load, then its webhooks drained. */
async function durable(
  name: string,
  envs: Record<string, string>[],
  stored: () => Promise<number>,
  beforeRun: () => Promise<void> = () => Promise.resolve(),
  posted: Posted = jsonPost,
): Promise<Measured> {
  const receiver = await startReceiver();
  const main = join(root, 'packages/forms/dist/main.js');
  const servers: { child: ChildProcess; url: string }[] = [];
  try {
    for (const env of envs) {
      servers.push(
        await startChild([main], {
          PORT: '0',
          FORM_ADMIN_TOKEN: token,
          ALLOW_PRIVATE_WEBHOOKS: '1',
          INGEST_RATE_LIMIT_PER_MINUTE: '0',
          LOG_LEVEL: 'info',
          ...env,
        }),
      );
    }
    const [first] = servers;
    if (!first) throw new Error('no server to measure');
    await createForm(first.url, receiver.url);
    const urls = servers.map((s) => `${s.url}/api/orgs/bench/forms/${posted.form}/submissions`);
    const pids = servers.map((s) => s.child.pid ?? 0);
    await beforeRun();
    let cpu = { servers: 0, postgres: 0, self: 0 };
    const result = await load(
      urls,
      posted.headers,
      async (run) => {
        const measured = await withCpu(pids, run);
        cpu = measured;
        return measured.result;
      },
      posted.payload,
    );
    // Delivery yields to an ingest burst: every stored submission's webhook must arrive, timed
    // from the end of the run.
    const duringRun = receiver.delivered.size;
    const drainStart = performance.now();
    let count = await stored();
    while (receiver.delivered.size < count && performance.now() - drainStart < 180_000) {
      await new Promise((r) => setTimeout(r, 100));
      count = await stored();
    }
    const drainS = (performance.now() - drainStart) / 1000;
    const perRequest = (seconds: number) => Math.round((seconds * 1e6) / result.requests.total);
    return {
      name,
      result,
      cpu: {
        servers: perRequest(cpu.servers),
        postgres: perRequest(cpu.postgres),
        self: perRequest(cpu.self),
      },
      webhooks:
        `${String(duringRun)} during the run; ${String(receiver.delivered.size)} of ` +
        `${String(count)} stored delivered ${drainS.toFixed(1)} s after it ` +
        `(${String(receiver.arrivals() - receiver.delivered.size)} repeats)`,
    };
  } finally {
    for (const s of servers) s.child.kill('SIGTERM');
    await Promise.all(
      servers.map((s) =>
        s.child.exitCode === null ? new Promise((r) => s.child.once('exit', r)) : Promise.resolve(),
      ),
    );
    receiver.close();
  }
}

/**
 * A checkpoint before each PostgreSQL subject: the WAL the previous one wrote is then flushed to
 * the tables before this run, not during it (a checkpoint during a run halved its rate).
 */
async function checkpoint(cluster: PostgresCluster): Promise<void> {
  const client = new pg.Client({ connectionString: cluster.url });
  await client.connect();
  await client.query('checkpoint');
  await client.end();
}

async function createDatabase(cluster: PostgresCluster, name: string): Promise<string> {
  const client = new pg.Client({ connectionString: cluster.url });
  await client.connect();
  await client.query(`create database ${name}`);
  await client.end();
  return cluster.urlOf(name);
}

async function main(): Promise<void> {
  if (process.argv.includes('--baseline-server')) {
    await baselineServer();
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'havn-bench-forms-'));
  // A PostgreSQL that cannot start fails the benchmark, with its reason.
  const cluster = await startPostgresCluster();
  const tsx = join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs');
  const baseline = await startChild([tsx, fileURLToPath(import.meta.url), '--baseline-server'], {});
  try {
    const sync = syncLatency(dir);
    console.log(
      `one synced SQLite commit on this disk (the floor under every durable answer): ` +
        `p50 ${sync.p50.toFixed(1)} ms, p99 ${sync.p99.toFixed(1)} ms`,
    );
    const bare: Measured = {
      name: '(d) bare Fastify JSON route',
      result: await load([`${baseline.url}/submit`], {
        'content-type': 'application/json',
        origin,
      }),
    };
    const sqliteDir = join(dir, 'sqlite');
    const sqlite = await durable(
      '(a) durable, SQLite',
      [{ USER_DATA_DIR: sqliteDir, WEB_DIR: join(dir, 'none') }],
      sqliteCounter(sqliteDir),
    );
    const one = await createDatabase(cluster, 'bench_one');
    const pgOne = await durable(
      '(b) durable, PostgreSQL, 1 instance',
      [{ USER_DATA_DIR: join(dir, 'pg1'), DATABASE_URL: one, WEB_DIR: join(dir, 'none') }],
      postgresCounter(one),
      () => checkpoint(cluster),
    );
    const two = await createDatabase(cluster, 'bench_two');
    const pgTwo = await durable(
      '(c) durable, PostgreSQL, 2 instances',
      [1, 2].map((i) => ({
        USER_DATA_DIR: join(dir, `pg2-${String(i)}`),
        DATABASE_URL: two,
        WEB_DIR: join(dir, 'none'),
      })),
      postgresCounter(two),
      () => checkpoint(cluster),
    );
    const filesDir = join(dir, 'sqlite-files');
    const sqliteFiles = await durable(
      '(e) durable, SQLite, one 100 KB file',
      [{ USER_DATA_DIR: filesDir, WEB_DIR: join(dir, 'none') }],
      sqliteCounter(filesDir),
      () => Promise.resolve(),
      filePost,
    );
    const floor: Measured = {
      name: '(f) bare Fastify, the 100 KB post to a synced file',
      result: await load([`${baseline.url}/file`], filePost.headers, undefined, filePost.payload),
    };
    const all = [sqlite, pgOne, pgTwo, bare, sqliteFiles, floor];
    const b = bare.result.requests.average;
    printTable(
      `forms ingest, ${String(connections)} connections, ${String(duration)} s, ${String(Buffer.byteLength(body))} B body, 1 webhook`,
      all.map((m) => ({
        subject: m.name,
        'req/s': Math.round(m.result.requests.average),
        'p50 ms': m.result.latency.p50,
        'p99 ms': m.result.latency.p99,
        'of bare': (m.result.requests.average / b).toFixed(2),
        'non-2xx': m.result.non2xx,
        errors: m.result.errors + m.result.timeouts,
      })),
    );
    printTable(
      'CPU per accepted submission (µs): forms server(s), PostgreSQL, this process (autocannon)',
      all.flatMap((m) =>
        m.cpu
          ? [
              {
                subject: m.name,
                servers: m.cpu.servers,
                postgres: m.cpu.postgres,
                autocannon: m.cpu.self,
              },
            ]
          : [],
      ),
    );
    console.log('\nwebhooks:');
    for (const m of all) if (m.webhooks) console.log(`  ${m.name}: ${m.webhooks}`);
    const rate = (m: Measured) => String(Math.round(m.result.requests.average));
    const ratio = (m: Measured) => (m.result.requests.average / b).toFixed(2);
    printSummary(
      'forms-ingest',
      `SQLite ${rate(sqlite)} req/s p99 ${String(sqlite.result.latency.p99)} ms (${ratio(sqlite)} of bare); ` +
        `PostgreSQL 1 instance ${rate(pgOne)} req/s p99 ${String(pgOne.result.latency.p99)} ms (${ratio(pgOne)}), ` +
        `2 instances ${rate(pgTwo)} req/s p99 ${String(pgTwo.result.latency.p99)} ms (${ratio(pgTwo)}); ` +
        `goal >= 2000 req/s durable at p99 < 50 ms on one PostgreSQL instance; ` +
        `with one 100 KB file on SQLite ${rate(sqliteFiles)} req/s p99 ${String(sqliteFiles.result.latency.p99)} ms ` +
        `(${(sqliteFiles.result.requests.average / sqlite.result.requests.average).toFixed(2)} of without, ` +
        `${(sqliteFiles.result.requests.average / floor.result.requests.average).toFixed(2)} of the synced-file floor ${rate(floor)} req/s), goal >= 1000 req/s`,
    );
  } finally {
    baseline.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
    cluster.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
