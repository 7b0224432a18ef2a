import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserFolders, processesWithHome } from '../test-support/browser-processes.js';
import { html, startFixtureServer, type FixtureServer } from '../test-support/fixture-server.js';
import { startService, type TestService } from '../test-support/service.js';
import { jsonAnswer, type JsonAnswer } from '../test-support/json-api.js';

// The warm browser's faults with real Chromium and real signals (docs/operations.md#render): a
// browser SIGKILLed under four renders, one SIGSTOPped (hung), a page that eats its renderer's
// heap. Each ends with the service healthy and serving.

const RENDER_TIMEOUT_MS = 4000;
// How long the browser may take to answer the liveness probe before it counts as hung: wide
// enough that a loaded machine never makes a healthy browser look hung.
const WEDGE_MS = 3000;

let svc: TestService;
let site: FixtureServer;

interface Answer extends JsonAnswer {
  /** ms from the request to its answer. */
  tookMs: number;
  /** Date.now() at the answer. */
  at: number;
}

function render(body: unknown): Promise<Answer> {
  const sent = Date.now();
  return svc
    .call('/v1/render', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    .then(async (res) => {
      const at = Date.now();
      return { ...(await jsonAnswer(res)), tookMs: at - sent, at };
    });
}

async function metric(name: string, labels = ''): Promise<number> {
  const text = await (await svc.call('/metrics')).text();
  const escaped = labels.replace(/[{}]/g, '\\$&');
  const line = new RegExp(`^${name}${escaped} (\\d+)`, 'm').exec(text);
  return Number(line?.[1] ?? 0);
}

const channelsOpen = () => metric('havn_proxy_channels_open');

async function renders(): Promise<{ inFlight: number; queued: number }> {
  const health = (await (await svc.call('/healthz', { auth: false })).json()) as {
    renders: { inFlight: number; queued: number };
  };
  return health.renders;
}

/** Polls `check` until it holds (then returns its value) or `timeoutMs` passes. */
async function until<T>(what: string, check: () => T | Promise<T>, timeoutMs = 20_000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > end) {
      throw new Error(`${what}: never happened; last logs:\n${svc.logs.slice(-10).join('')}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The pid of the warm browser, as the service logged it at launch. */
function browserPid(): number {
  const pid = svc.logs
    .map((l) => JSON.parse(l) as { msg?: string; pid?: number })
    .filter((l) => l.msg === 'browser launched')
    .at(-1)?.pid;
  if (pid === undefined) throw new Error('no browser launched yet');
  return pid;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function warm(): Promise<number> {
  expect((await render({ html: '<p>warm</p>', return: 'base64' })).status).toBe(200);
  return browserPid();
}

beforeAll(async () => {
  site = await startFixtureServer({
    '/ok': html('<p>ok</p>'),
    // Never answers: a render of it stays in flight until its deadline.
    '/hang': () => undefined,
  });
  svc = await startService(
    {
      ALLOWED_HOSTS: 'localhost',
      MAX_CONCURRENCY: '4',
      QUEUE_TIMEOUT_MS: '30000',
      RENDER_TIMEOUT_MS: String(RENDER_TIMEOUT_MS),
      // A page's heap bound low enough that the out-of-memory page crashes well within a second.
      PAGE_MAX_HEAP_MB: '64',
    },
    { wedgeTimeoutMs: WEDGE_MS },
  );
});

afterAll(async () => {
  await svc.close();
  await site.close();
});

describe('the browser killed mid-render (SIGKILL)', () => {
  it('answers each of 4 renders in flight 502 within 2 s, serves the next on a fresh browser, and leaves nothing behind', async () => {
    const pid = await warm();
    const { home, profile } = browserFolders(pid);
    const processesBefore = processesWithHome(home);
    expect(processesBefore.length).toBeGreaterThan(1); // the browser and its helpers
    expect(await channelsOpen()).toBe(1); // the main channel only

    const hangsBefore = site.hits.get('/hang') ?? 0;
    const inFlight = [1, 2, 3, 4].map((n) => render({ url: `${site.origin}/hang?n=${n}` }));
    // All four pages really loading in the browser, each through a proxy channel of its own.
    await until('4 renders loading', () => (site.hits.get('/hang') ?? 0) - hangsBefore === 4);
    expect(await channelsOpen()).toBe(5);

    const killedAt = Date.now();
    process.kill(pid, 'SIGKILL');
    const answers = await Promise.all(inFlight);
    for (const answer of answers) {
      expect(answer.status).toBe(502);
      expect(answer.code).toBe('RENDER_BROWSER_CRASHED');
      expect(answer.body.error).toMatch(/^the browser crashed during the render/);
      expect(answer.at - killedAt).toBeLessThan(2000);
    }
    expect(await metric('havn_render_failures_total', '{cause="browser_crash"}')).toBe(4);

    const next = await render({ url: `${site.origin}/ok`, return: 'base64' });
    expect(next.status).toBe(200);
    const fresh = browserPid();
    expect(fresh).not.toBe(pid);

    // Nothing of the killed browser is left: no process, no HOME, no profile, no channel.
    await until('the killed browser cleaned up', async () => {
      return (
        processesWithHome(home).length === 0 &&
        !existsSync(home) &&
        !existsSync(profile) &&
        (await channelsOpen()) === 1
      );
    });
    // And the fresh browser is the only one of this service.
    expect(processesWithHome(browserFolders(fresh).home).length).toBeGreaterThan(1);
    expect(await renders()).toEqual({ inFlight: 0, queued: 0 });
  });
});

describe('the browser hung (SIGSTOP)', () => {
  it('answers 504 at RENDER_TIMEOUT_MS, kills and replaces the browser, and drains the queue', async () => {
    const pid = await warm();
    process.kill(pid, 'SIGSTOP');
    try {
      // 4 take the slots (MAX_CONCURRENCY 4) and wait on the stopped browser; 2 queue behind.
      const stuck = [1, 2, 3, 4].map((n) => render({ html: `<p>stuck ${n}</p>` }));
      await until('4 in flight', async () => (await renders()).inFlight === 4);
      const queued = [1, 2].map((n) => render({ html: `<p>queued ${n}</p>`, return: 'base64' }));
      await until('2 queued', async () => (await renders()).queued === 2);

      for (const answer of await Promise.all(stuck)) {
        expect(answer.status).toBe(504);
        expect(answer.code).toBe('RENDER_TIMEOUT');
        expect(answer.body).toEqual({ error: `render timed out after ${RENDER_TIMEOUT_MS} ms` });
        expect(answer.tookMs).toBeGreaterThanOrEqual(RENDER_TIMEOUT_MS - 50);
        // At the deadline, not once the browser is dealt with.
        expect(answer.tookMs).toBeLessThan(RENDER_TIMEOUT_MS + 1500);
      }
      // The hung browser was found out by the probe and killed; the queue ran on a fresh one.
      for (const answer of await Promise.all(queued)) expect(answer.status).toBe(200);
      await until('the hung browser gone', () => !alive(pid));
      expect(browserPid()).not.toBe(pid);
      expect(svc.logs.some((l) => l.includes('browser stopped responding'))).toBe(true);
    } finally {
      // Killed by the service already; make sure nothing is left stopped whatever happened.
      if (alive(pid)) process.kill(pid, 'SIGKILL');
    }
    await until('the queue drained', async () => {
      const now = await renders();
      return now.inFlight === 0 && now.queued === 0;
    });
    expect(await channelsOpen()).toBe(1);
    expect((await render({ html: '<p>after</p>', return: 'base64' })).status).toBe(200);
  });
});

describe('a renderer out of memory', () => {
  it('answers 502 page crashed, and the next render on the same browser works', async () => {
    const pid = await warm();
    // Allocates until V8 gives up on the page's heap (PAGE_MAX_HEAP_MB) and the renderer dies.
    const greedy = await render({
      html: '<script>const a = []; for (;;) a.push(new Array(1e5).fill(a.length));</script>',
    });
    expect(greedy.status).toBe(502);
    expect(greedy.code).toBe('RENDER_PAGE_CRASHED');
    expect(greedy.body.error).toMatch(/^page crashed: /);
    expect(await metric('havn_render_failures_total', '{cause="page_crash"}')).toBe(1);

    const next = await render({ url: `${site.origin}/ok`, return: 'base64' });
    expect(next.status).toBe(200);
    expect(browserPid()).toBe(pid);
    expect(alive(pid)).toBe(true);
    expect(await renders()).toEqual({ inFlight: 0, queued: 0 });
  });
});
