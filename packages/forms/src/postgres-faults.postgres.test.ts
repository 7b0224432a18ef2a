// PostgreSQL goes away under a running forms server (docs/operations.md#postgresql-restarts): a
// fast restart, and every backend terminated, each in the middle of an ingest burst. Each test
// runs on a cluster of its own, so restarting it disturbs no other test file.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startPostgresCluster,
  type PostgresCluster,
} from '../../../test-support/postgres-cluster.js';
import { freePort } from '../../../test-support/ports.js';
import { startFormsChild, type FormsChild } from './test-support/forms-child.js';
import { adminToken, client, seedForm } from './test-support/forms-server.js';
import { startReceiver, waitFor, type Receiver } from './test-support/receivers.js';

const site = 'http://site.test';
const formPath = '/api/orgs/acme/forms/contact';
/** No request may wait longer than this for its answer, outage or not. */
const ANSWER_BOUND_MS = 10_000;

let cluster: PostgresCluster;
beforeAll(async () => {
  cluster = await startPostgresCluster();
});
afterAll(() => {
  cluster.stop();
});

interface Outcome {
  status: number | 'no answer';
  ms: number;
  id?: string;
  retryAfter?: string | null;
}

/** Posts `count` submissions, `concurrency` at a time, calling `fault` once `at` were answered. */
async function burst(
  forms: FormsChild,
  count: number,
  at: number,
  fault: () => Promise<void>,
): Promise<{ outcomes: Outcome[]; faulted: Promise<void> }> {
  const outcomes: Outcome[] = [];
  let next = 0;
  let faulted: Promise<void> = Promise.resolve();
  const post = client(forms.url, null);
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < count) {
        const i = next++;
        const t0 = Date.now();
        const outcome: Outcome = await post<{ id: string }>(
          'POST',
          `${formPath}/submissions`,
          { name: `n${String(i)}`, message: 'x'.repeat(200) },
          { origin: site },
        ).then(
          (r) => ({
            status: r.status,
            ms: Date.now() - t0,
            ...(r.status === 200 && { id: r.body.id }),
            retryAfter: r.headers.get('retry-after'),
          }),
          () => ({ status: 'no answer' as const, ms: Date.now() - t0 }),
        );
        outcomes.push(outcome);
        if (outcomes.length === at) faulted = fault();
      }
    }),
  );
  await faulted;
  return { outcomes, faulted };
}

describe.each([
  {
    name: 'a fast restart (pg_ctl restart -m fast)',
    fault: (): Promise<void> => cluster.restart(),
  },
  {
    name: 'every backend terminated (pg_terminate_backend)',
    fault: async (): Promise<void> => {
      const admin = new pg.Client({ connectionString: cluster.url });
      await admin.connect();
      await admin.query(
        'select pg_terminate_backend(pid) from pg_stat_activity where pid <> pg_backend_pid() and datname is not null',
      );
      await admin.end();
    },
  },
])('PostgreSQL fault: $name', ({ fault }) => {
  let forms: FormsChild;
  let hook: Receiver;
  let dir: string;

  beforeAll(async () => {
    const name = `havn_fault_${String(Date.now())}`;
    const admin = new pg.Client({ connectionString: cluster.url });
    await admin.connect();
    await admin.query(`create database ${name}`);
    await admin.end();
    dir = mkdtempSync(join(tmpdir(), 'havn-forms-pgfault-'));
    hook = await startReceiver();
    forms = await startFormsChild(
      {
        USER_DATA_DIR: dir,
        DATABASE_URL: cluster.urlOf(name),
        INGEST_RATE_LIMIT_PER_MINUTE: '0',
      },
      { retrySchedule: [200, 500, 1_000] },
    );
    await seedForm(forms.url, { webhooks: [{ url: `${hook.url}/hook`, secret: 'k' }] });
  });

  afterAll(async () => {
    await forms.kill('SIGKILL');
    await hook.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers every request in time, keeps every acknowledged submission, and recovers alone', async () => {
    const { outcomes } = await burst(forms, 300, 60, fault);
    // The server lived through it.
    expect(forms.process.exitCode).toBeNull();
    expect(forms.process.signalCode).toBeNull();
    // Every request got an answer, in time: a 200, or a 503 saying when to come back.
    for (const o of outcomes) {
      expect(o.status === 200 || o.status === 503, JSON.stringify(o)).toBe(true);
      expect(o.ms).toBeLessThan(ANSWER_BOUND_MS);
      if (o.status === 503) expect(Number(o.retryAfter)).toBeGreaterThan(0);
    }
    // PostgreSQL is back: within 5 s a submission is taken again.
    const back = Date.now();
    const fresh = await waitFor(
      async () => {
        const r = await client(forms.url, null)<{ id: string }>(
          'POST',
          `${formPath}/submissions`,
          { name: 'after', message: 'back' },
          { origin: site },
        );
        return r.status === 200 ? r.body.id : undefined;
      },
      5_000,
      'a 200 within 5 s of PostgreSQL being back',
    );
    expect(Date.now() - back).toBeLessThan(5_000);
    // Every acknowledged submission is stored, and each one's webhook arrives.
    const acknowledged = [...outcomes.flatMap((o) => (o.id ? [o.id] : [])), fresh];
    const feed = await client(forms.url)<{ submissions: { id: string }[] }>(
      'GET',
      `${formPath}/submissions?limit=500`,
    );
    const stored = new Set(feed.body.submissions.map((s) => s.id));
    expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);
    const delivered = () =>
      new Set(
        hook.received.map(
          (r) => (JSON.parse(r.body.toString()) as { data: { id: string } }).data.id,
        ),
      );
    await waitFor(
      () => (acknowledged.every((id) => delivered().has(id)) ? true : undefined),
      60_000,
      "every acknowledged submission's webhook",
    );
    const health = await client(forms.url)('GET', '/api/health');
    expect(health.status).toBe(200);
  });
});

/** A TCP pipe on a fixed loopback port to `port`: PostgreSQL appearing at an address. */
function pipeTo(at: number, port: number): Promise<Server> {
  const server = createServer((socket) => {
    const upstream = connect(port, '127.0.0.1');
    socket.pipe(upstream).pipe(socket);
    socket.on('error', () => upstream.destroy());
    upstream.on('error', () => socket.destroy());
  });
  return new Promise((resolve) =>
    server.listen(at, '127.0.0.1', () => {
      resolve(server);
    }),
  );
}

it('waits for a PostgreSQL that is not there at start, then serves without a restart', async () => {
  const name = `havn_late_${String(Date.now())}`;
  const admin = new pg.Client({ connectionString: cluster.url });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const [dbPort, port] = [await freePort(), await freePort()];
  const dir = mkdtempSync(join(tmpdir(), 'havn-forms-late-'));
  const child = spawn(
    process.execPath,
    [fileURLToPath(new URL('../dist/main.js', import.meta.url))],
    {
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        USER_DATA_DIR: dir,
        DATABASE_URL: `postgres://postgres@127.0.0.1:${String(dbPort)}/${name}`,
        FORM_ADMIN_TOKEN: adminToken,
        ALLOW_PRIVATE_WEBHOOKS: '1',
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise((r) => child.once('exit', r));
  let pipe: Server | undefined;
  try {
    const base = `http://127.0.0.1:${String(port)}`;
    await waitFor(() => (/trying again in/.test(out) ? true : undefined));
    expect((await fetch(`${base}/api/health`)).status).toBe(503);
    pipe = await pipeTo(dbPort, cluster.port);
    const appeared = Date.now();
    // The next try connects (backoff: 1, 2, 4 … s), migrates and serves; nothing restarted.
    await waitFor(async () => {
      const r = await fetch(`${base}/api/health`).catch(() => undefined);
      return r?.status === 200 ? true : undefined;
    }, 20_000);
    expect(Date.now() - appeared).toBeLessThan(10_000);
    expect(out).toMatch(/is reachable/);
    await seedForm(base);
    const r = await client(base, null)(
      'POST',
      `${formPath}/submissions`,
      { name: 'late' },
      { origin: site },
    );
    expect(r.status).toBe(200);
    expect(child.exitCode).toBeNull();
  } finally {
    child.kill('SIGTERM');
    await exited;
    pipe?.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
