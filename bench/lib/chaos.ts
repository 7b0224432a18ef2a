import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { seedForm, startFormsChild, type FormsChild } from '@havn/forms/testing';
import { startPostgresCluster, type PostgresCluster } from '../../test-support/postgres-cluster.js';
import { mountSmallDisk, type SmallDisk } from '../../test-support/small-disk.js';

// The chaos run (docs/operations.md#a-chaos-run): the render service and the forms server (on
// PostgreSQL, its webhooks to a local receiver) under mixed load while faults are injected at
// random: the render browser SIGKILLed, every PostgreSQL connection terminated, the artifact disk
// filled and freed, the webhook receiver hanging. Then the faults stop, the run drains, and it
// counts what users would notice: answers by outcome, the longest wait, acknowledged submissions
// missing, webhooks delivered by distinct id against submissions acknowledged.

const root = fileURLToPath(new URL('../..', import.meta.url));
const TOKEN = 'chaos-render-token-0123456789abcdef';
const SITE = 'http://site.test';
/** A request still unanswered after this counts as "no answer" (none may be). */
const CLIENT_DEADLINE_MS = 60_000;

export type Fault = 'browser killed' | 'connections terminated' | 'disk full' | 'receiver hangs';
const KINDS: readonly Fault[] = [
  'browser killed',
  'connections terminated',
  'disk full',
  'receiver hangs',
];

function shuffled<T>(items: readonly T[]): T[] {
  return items
    .map((item) => ({ item, key: Math.random() }))
    .sort((a, b) => a.key - b.key)
    .map((x) => x.item);
}

export interface ChaosOptions {
  durationMs: number;
  /** Mean time between faults. */
  faultEveryMs?: number;
  /**
   * How long the drain may go without one more webhook arriving once the faults stop: a long run
   * leaves a backlog (deliveries yield to ingest while it is busy) that takes longer than this to
   * deliver, but never stops arriving; a lost webhook never arrives.
   */
  drainMs?: number;
  log?: (line: string) => void;
}

export interface ChaosReport {
  /** "render 200", "forms 503", "render no answer", … → count. */
  outcomes: Record<string, number>;
  longestWaitMs: number;
  faults: Record<string, number>;
  acknowledged: number;
  /** Acknowledged (200) submissions not in the database afterwards: must be 0. */
  missing: number;
  /** Submissions stored (acknowledged ones, and any whose answer a fault cut off). */
  stored: number;
  /** Distinct webhook ids the receiver answered 200: one per stored submission once drained. */
  delivered: number;
  /** Acknowledged submissions whose webhook the receiver never answered: must be 0. */
  undelivered: number;
  drainedInMs: number;
  rssMiB: Record<'render' | 'forms', { start: number; end: number }>;
}

/** VmRSS of a process, MiB. */
function rssMiB(pid: number | undefined): number {
  const status = readFileSync(`/proc/${String(pid)}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
}

interface RenderChild {
  url: string;
  process: ChildProcess;
  /** The warm browser's pid, from its latest `browser launched` log line. */
  browserPid(): number | undefined;
  stop(): Promise<void>;
}

async function startRender(artifactDir: string): Promise<RenderChild> {
  const child = spawn(process.execPath, [join(root, 'packages/render/dist/main.js')], {
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      BROWSER_API_TOKEN: TOKEN,
      ARTIFACT_DIR: artifactDir,
      MAX_CONCURRENCY: '2',
      RENDER_TIMEOUT_MS: '10000',
      QUEUE_TIMEOUT_MS: '15000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let pid: number | undefined;
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const lines = out.split('\n');
      out = lines.pop() ?? '';
      for (const line of lines) {
        const listening = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(line);
        if (listening?.[1]) resolve(listening[1]);
        if (line.includes('"msg":"browser launched"')) {
          pid = (JSON.parse(line) as { pid?: number }).pid;
        }
      }
    });
    child.stderr.resume();
    child.once('exit', (code) => {
      reject(new Error(`the render service exited (${String(code)})`));
    });
  });
  return {
    url,
    process: child,
    browserPid: () => pid,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) resolve();
        child.once('exit', () => {
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}

/** A webhook receiver that answers 200, or holds every request open while `hanging`. */
async function startReceiver() {
  /** Distinct webhook ids answered 200, and the submissions they carried. */
  const delivered = new Set<string>();
  const submissions = new Set<string>();
  const held = new Set<ServerResponse>();
  let hanging = false;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (hanging) {
        held.add(res);
        return;
      }
      delivered.add(String(req.headers['webhook-id']));
      const body = JSON.parse(Buffer.concat(chunks).toString()) as { data?: { id?: string } };
      if (body.data?.id !== undefined) submissions.add(body.data.id);
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/hook`,
    delivered,
    submissions,
    hang(on: boolean) {
      hanging = on;
      if (!on) for (const res of held) res.destroy();
      if (!on) held.clear();
    },
    close() {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      server.close();
    },
  };
}

export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  const log = options.log ?? (() => undefined);
  const faultEveryMs = options.faultEveryMs ?? 3000;
  let cluster: PostgresCluster | undefined;
  let disk: SmallDisk | undefined;
  let render: RenderChild | undefined;
  let forms: FormsChild | undefined;
  const receiver = await startReceiver();
  try {
    const database = `havn_chaos_${String(Date.now())}`;
    const artifactDisk = mountSmallDisk('havn-chaos-artifacts-', '32m');
    disk = artifactDisk;
    const filler = join(artifactDisk.dir, 'filler');
    const artifactDir = join(artifactDisk.dir, 'artifacts');
    // The two services start side by side; forms waits for its database.
    const startForms = async () => {
      cluster = await startPostgresCluster();
      const admin = new pg.Client({ connectionString: cluster.url });
      await admin.connect();
      await admin.query(`create database ${database}`);
      await admin.end();
      forms = await startFormsChild(
        { DATABASE_URL: cluster.urlOf(database), INGEST_RATE_LIMIT_PER_MINUTE: '0' },
        // Short retries and attempt deadline, so the run drains in seconds (docs/forms.md#webhooks).
        { retrySchedule: [200, 500, 1000, 2000], deliveryTimeoutMs: 2000 },
      );
      await seedForm(forms.url, { webhooks: [{ url: receiver.url, secret: 'k' }] });
      return forms;
    };
    const startWarmRender = async () => {
      render = await startRender(artifactDir);
      await fetch(`${render.url}/v1/render`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ html: '<p>warm</p>', return: 'base64' }),
      });
      return render;
    };
    const [formsUp, renderUp] = await Promise.all([startForms(), startWarmRender()]);
    const renderUrl = renderUp.url;
    const formsUrl = formsUp.url;
    const postgres = cluster;
    if (!postgres) throw new Error('PostgreSQL did not start');

    log('services up; load and faults start');
    const rssStart = { render: rssMiB(renderUp.process.pid), forms: rssMiB(formsUp.process.pid) };

    const outcomes: Record<string, number> = {};
    const faults: Record<string, number> = {};
    const acknowledged = new Set<string>();
    let longestWaitMs = 0;
    const end = Date.now() + options.durationMs;

    async function timed(service: string, request: () => Promise<Response>) {
      const started = Date.now();
      let outcome: string;
      try {
        const res = await request();
        outcome = String(res.status);
        if (service === 'forms' && res.status === 200) {
          acknowledged.add(((await res.json()) as { id: string }).id);
        } else {
          await res.arrayBuffer();
        }
      } catch {
        outcome = 'no answer';
      }
      longestWaitMs = Math.max(longestWaitMs, Date.now() - started);
      const key = `${service} ${outcome}`;
      outcomes[key] = (outcomes[key] ?? 0) + 1;
    }

    const renderLoad = async () => {
      for (let i = 0; Date.now() < end; i++) {
        await timed('render', () =>
          fetch(`${renderUrl}/v1/render`, {
            method: 'POST',
            headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
            body: JSON.stringify({ html: `<h1>chaos ${String(i)}</h1>` }),
            signal: AbortSignal.timeout(CLIENT_DEADLINE_MS),
          }),
        );
      }
    };
    const formsLoad = async () => {
      for (let i = 0; Date.now() < end; i++) {
        await timed('forms', () =>
          fetch(`${formsUrl}/api/orgs/acme/forms/contact/submissions`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', origin: SITE },
            body: JSON.stringify({ name: `n${String(i)}`, message: 'x'.repeat(500) }),
            signal: AbortSignal.timeout(CLIENT_DEADLINE_MS),
          }),
        );
      }
    };

    const state = { diskFull: false, hanging: false };
    const inject = async (fault: Fault) => {
      faults[fault] = (faults[fault] ?? 0) + 1;
      log(`fault: ${fault}`);
      switch (fault) {
        case 'browser killed': {
          const pid = renderUp.browserPid();
          if (pid !== undefined) {
            try {
              process.kill(pid, 'SIGKILL');
            } catch {
              // Already replaced.
            }
          }
          break;
        }
        case 'connections terminated': {
          const c = new pg.Client({ connectionString: postgres.url });
          await c.connect();
          await c.query(
            'select pg_terminate_backend(pid) from pg_stat_activity where pid <> pg_backend_pid() and datname is not null',
          );
          await c.end();
          break;
        }
        case 'disk full':
          if (state.diskFull) rmSync(filler, { force: true });
          else artifactDisk.fill(filler);
          state.diskFull = !state.diskFull;
          break;
        case 'receiver hangs':
          state.hanging = !state.hanging;
          receiver.hang(state.hanging);
          break;
      }
    };
    // Every kind once per round, in a random order: a short run still meets each of them.
    const chaos = async () => {
      let round: Fault[] = [];
      while (Date.now() < end) {
        await new Promise((r) => setTimeout(r, faultEveryMs * (0.5 + Math.random())));
        if (Date.now() >= end) break;
        if (round.length === 0) round = shuffled(KINDS);
        await inject(round.pop() ?? 'browser killed');
      }
    };

    await Promise.all([renderLoad(), renderLoad(), formsLoad(), formsLoad(), formsLoad(), chaos()]);

    // The faults stop: the disk is freed and the receiver answers; every acknowledged submission
    // must reach it (the forms server retries on its schedule).
    rmSync(filler, { force: true });
    receiver.hang(false);
    const drainStarted = Date.now();
    const drainMs = options.drainMs ?? 60_000;
    const allDelivered = () => [...acknowledged].every((id) => receiver.submissions.has(id));
    let arrived = receiver.submissions.size;
    let arrivedAt = Date.now();
    while (!allDelivered() && Date.now() - arrivedAt < drainMs) {
      await new Promise((r) => setTimeout(r, 200));
      if (receiver.submissions.size > arrived) {
        arrived = receiver.submissions.size;
        arrivedAt = Date.now();
      }
    }
    const drainedInMs = Date.now() - drainStarted;

    const check = new pg.Client({ connectionString: postgres.urlOf(database) });
    await check.connect();
    const stored = new Set(
      (await check.query<{ id: string }>('select id from submissions')).rows.map((r) => r.id),
    );
    await check.end();
    const missing = [...acknowledged].filter((id) => !stored.has(id)).length;
    log('drained and counted; stopping');
    const rssEnd = { render: rssMiB(renderUp.process.pid), forms: rssMiB(formsUp.process.pid) };
    return {
      outcomes,
      longestWaitMs,
      faults,
      acknowledged: acknowledged.size,
      missing,
      stored: stored.size,
      delivered: receiver.delivered.size,
      undelivered: [...acknowledged].filter((id) => !receiver.submissions.has(id)).length,
      drainedInMs,
      rssMiB: {
        render: { start: rssStart.render, end: rssEnd.render },
        forms: { start: rssStart.forms, end: rssEnd.forms },
      },
    };
  } finally {
    await Promise.all([forms?.kill('SIGTERM'), render?.stop()]);
    log('services stopped');
    receiver.close();
    disk?.remove();
    cluster?.stop();
  }
}
