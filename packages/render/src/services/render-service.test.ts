import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { html, startFixtureServer, type FixtureServer } from '../test-support/fixture-server.js';
import { startService, type TestService } from '../test-support/service.js';
import { jsonAnswer } from '../test-support/json-api.js';

// The render queue and deadlines (docs/render.md#behaviour-in-detail) with real Chromium: one
// slot and a page that never finishes loading. The browser's own faults (killed, hung, a page out
// of memory) are in browser-faults.test.ts.

const QUEUE_TIMEOUT_MS = 1500;
const RENDER_TIMEOUT_MS = 3000;

let svc: TestService;
let site: FixtureServer;

interface Health {
  renders: { inFlight: number; queued: number };
}

async function health(): Promise<Health> {
  return (await (await svc.call('/healthz', { auth: false })).json()) as Health;
}

// Long enough for the wedge path: a browser that cannot close a context within 10 s is killed and
// the slot freed (docs/render.md#browser-processes), which a loaded machine can reach.
async function until(check: (h: Health) => boolean, timeoutMs = 20_000): Promise<Health> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const h = await health();
    if (check(h)) return h;
    if (Date.now() > end) {
      const recent = svc.logs.slice(-15).join('\n');
      throw new Error(
        `health never matched: ${JSON.stringify(h)}; the service's last logs:\n${recent}`,
      );
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function failures(cause: string): Promise<number> {
  const text = await (await svc.call('/metrics')).text();
  const line = new RegExp(`^havn_render_failures_total\\{cause="${cause}"\\} (\\d+)`, 'm').exec(
    text,
  );
  return Number(line?.[1] ?? 0);
}

function start(body: unknown, signal?: AbortSignal) {
  return svc
    .call('/v1/render', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      ...(signal && { signal }),
    })
    .then(jsonAnswer);
}

beforeAll(async () => {
  site = await startFixtureServer({
    '/ok': html('<p>ok</p>'),
    // Never answers: navigation waits until the deadline.
    '/hang': () => undefined,
  });
  svc = await startService({
    ALLOWED_HOSTS: 'localhost',
    MAX_CONCURRENCY: '1',
    QUEUE_TIMEOUT_MS: String(QUEUE_TIMEOUT_MS),
    RENDER_TIMEOUT_MS: String(RENDER_TIMEOUT_MS),
    MAX_HTML_BYTES: '2000',
  });
});

afterAll(async () => {
  await svc.close();
  await site.close();
});

describe('deadlines and the queue', () => {
  // A render that timed out answers at its deadline but keeps its slot until the browser has let
  // go of the page: each test starts from an idle queue.
  beforeEach(async () => {
    await until((h) => h.renders.inFlight === 0 && h.renders.queued === 0);
  });

  it('answers 504 when navigation exceeds RENDER_TIMEOUT_MS', async () => {
    const timeoutsBefore = await failures('render_timeout');
    const { status, code, body } = await start({ url: `${site.origin}/hang` });
    expect(status).toBe(504);
    expect(code).toBe('RENDER_TIMEOUT');
    expect(body).toEqual({ error: `render timed out after ${RENDER_TIMEOUT_MS} ms` });
    expect((await failures('render_timeout')) - timeoutsBefore).toBe(1);
  });

  it('queues behind a busy slot, shows it in health, and answers 503 after QUEUE_TIMEOUT_MS', async () => {
    const queueTimeoutsBefore = await failures('queue_timeout');
    const first = start({ url: `${site.origin}/hang` });
    await until((h) => h.renders.inFlight === 1);
    const second = start({ html: '<p>waiting</p>' });
    const waiting = await until((h) => h.renders.queued === 1);
    expect(waiting.renders).toEqual({ inFlight: 1, queued: 1 });
    const queued = await second;
    expect(queued.status).toBe(503);
    expect(queued.code).toBe('RENDER_QUEUE_FULL');
    expect(queued.body.error).toMatch(/queue/);
    expect((await failures('queue_timeout')) - queueTimeoutsBefore).toBe(1);
    expect((await first).status).toBe(504);
    // The 504 goes out at the deadline; the slot follows once the browser has closed the page.
    await until((h) => h.renders.inFlight === 0 && h.renders.queued === 0);
  });

  it('frees the slot when a client disconnects while rendering or queued', async () => {
    const abortedBefore = await failures('aborted');
    const timeoutsBefore = await failures('render_timeout');
    const running = new AbortController();
    const first = start({ url: `${site.origin}/hang` }, running.signal).catch(() => 'aborted');
    await until((h) => h.renders.inFlight === 1);
    const queuedClient = new AbortController();
    const second = start({ html: '<p>x</p>' }, queuedClient.signal).catch(() => 'aborted');
    await until((h) => h.renders.queued === 1);
    queuedClient.abort();
    expect(await second).toBe('aborted');
    await until((h) => h.renders.queued === 0 && h.renders.inFlight === 1);
    running.abort();
    expect(await first).toBe('aborted');
    await until((h) => h.renders.inFlight === 0);
    // Both ended as client aborts (the running one was not left to reach its deadline).
    expect((await failures('aborted')) - abortedBefore).toBe(2);
    expect(await failures('render_timeout')).toBe(timeoutsBefore);
    const next = await start({ html: '<p>next</p>', return: 'base64' });
    expect(next.status).toBe(200);
  });

  it('puts a profile that times out into its own batch slot', async () => {
    const res = await svc.post('/v1/render/batch', {
      html: `<body><script>if (innerWidth < 1200) document.write('<img src="${site.origin}/hang">')</script></body>`,
      profiles: ['desktop', 'mobile'],
    });
    expect(res.status).toBe(200);
    const [desktop, mobile] = res.body.results as Record<string, unknown>[];
    expect(desktop).toHaveProperty('artifact');
    expect(mobile).toEqual({
      profile: 'mobile',
      error: `render timed out after ${RENDER_TIMEOUT_MS} ms`,
    });
  });
});

describe('failures by cause (havn_render_failures_total)', () => {
  it('counts a refused url as refused and an unreachable one as navigation', async () => {
    const refusedBefore = await failures('refused');
    const navigationBefore = await failures('navigation');
    const refused = await start({ url: 'ftp://localhost/' });
    expect(refused.code).toBe('RENDER_URL_SCHEME');
    expect((await failures('refused')) - refusedBefore).toBe(1);
    const unreachable = await start({ url: 'http://localhost:9/' });
    expect(unreachable.status).toBe(502);
    expect(unreachable.code).toBe('RENDER_NAVIGATION_FAILED');
    expect((await failures('navigation')) - navigationBefore).toBe(1);
  });
});

describe('limits', () => {
  it('refuses html over MAX_HTML_BYTES with 400 naming the field', async () => {
    const ok = await start({ html: `<p>${'x'.repeat(1900)}</p>`, return: 'base64' });
    expect(ok.status).toBe(200);
    const big = await start({ html: `<p>${'ø'.repeat(1000)}</p>` });
    expect(big.status).toBe(400);
    expect(big.code).toBe('RENDER_OPTIONS_INVALID');
    expect(big.body).toEqual({ error: 'html is 2007 bytes; the limit (MAX_HTML_BYTES) is 2000' });
  });

  it('refuses a waitForTimeout that cannot finish within RENDER_TIMEOUT_MS', async () => {
    const res = await start({ html: '<p>x</p>', waitForTimeout: RENDER_TIMEOUT_MS });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^waitForTimeout/);
  });
});
