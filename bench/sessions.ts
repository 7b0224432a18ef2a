// bench/sessions (docs/benchmarks.md#sessions-the-cdp-door): (a) time from POST /v1/sessions to
// 201, p50/p95 over 20 sessions; (b) CDP round trips per second through the door against the same
// browser's own DevTools socket, and the ratio door/direct. The real render service (composeServer
// + the sessions extension, real Chromium behind the guard proxy) runs in a child process; this
// process is the client. For scale, the same round trips also go through a plain TCP pipe that the
// service process opens to the browser's socket (a hop that judges nothing: pipe/direct is what any
// extra hop costs on this machine), and through a second door in the service process that reads
// every message whole but judges nothing: door/unjudged is what the allow-list and the parameter
// checks cost. A third door judges everything but never stops reading the client while it waits
// (`pause: false`, the door before docs/sessions.md#where-the-door-waits): door/unpaused is what
// the backpressure costs. (c) The live view in a real browser. (d) Session start from a saved
// state of 50 cookies and 1 MB of localStorage against none, alternated in the same run, each
// from a full warm pool, and bare Playwright's newContext with the same state against without, on
// the same Chromium, as the library's own cost, and the least any start from the state pays there
// (a document of the origin, the write, the way back to about:blank). (e) Session start as a
// Playwright client sees it, from the request to a connected connectOverCDP with its page at
// about:blank, on a pooled browser (docs/sessions.md#the-warm-pool) against a second service with
// SESSION_POOL_SIZE=0, alternated in the same run.
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer as createHttpServer } from 'node:http';
import { connect, createServer, type AddressInfo, type Server } from 'node:net';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '@havn/shared';
import {
  acrossSwap,
  Authenticator,
  composeServer,
  loadConfig,
  LOOPBACK_ONLY,
  CdpDoor,
  type FrameJudge,
  sessionsExtension,
} from '@havn/render/testing';
import { countRoundTrips } from './lib/cdp-round-trips.js';
import { percentile, printSummary, printTable } from './lib/harness.js';

const TOKEN = 'bench-token-0123456789abcdef';
const SESSIONS = 20;
const ROUND_TRIP_MS = 4000;
const ROUNDS = 8;
const WINDOW = 64;

const chromiumPath = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium-headless-shell';

/**
 * The service side, in a child process of its own: the client loop below must not share an event
 * loop with the door it measures (a real client is another process).
 */
async function serve(): Promise<void> {
  const send = (msg: object) => process.send?.(msg);
  const dir = await mkdtemp(join(tmpdir(), 'havn-bench-sessions-'));
  const config = loadConfig({
    PATH: process.env['PATH'],
    BROWSER_API_TOKEN: TOKEN,
    ARTIFACT_DIR: join(dir, 'artifacts'),
    MAX_SESSIONS: '4',
    CHROMIUM_PATH: chromiumPath,
    FFMPEG_PATH: process.env['FFMPEG_PATH'],
    // The live view's pages come from this bench's own server on loopback.
    ALLOWED_HOSTS: 'localhost',
    // Saved browser states are sealed under a key (docs/sessions.md#log-in-once-render-many-times).
    STATE_KEY: randomBytes(32).toString('base64'),
    // (e) runs a second service with the pool off.
    SESSION_POOL_SIZE: process.env['BENCH_SESSION_POOL_SIZE'] ?? '1',
  });
  const sessions = sessionsExtension();
  const app = await composeServer({
    config,
    log: createLogger({ name: 'bench-sessions', level: 'silent' }),
    extensions: [sessions],
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  let pipe: Server | undefined;
  // The door as it was before it judged anything: each message read whole, parsed, forwarded.
  const parseOnly: FrameJudge = (text) => ({
    ok: true,
    text,
    command: JSON.parse(text) as Extract<ReturnType<FrameJudge>, { ok: true }>['command'],
  });
  // These doors let anyone attach, as the bench's clients hold no token.
  const anyone = new Authenticator({ apiToken: undefined, allowAnonymous: true });
  const unjudged = new CdpDoor({
    lookup: (id) => sessions.manager()?.get(id),
    authenticator: anyone,
    log: app.log,
    hosts: LOOPBACK_ONLY,
    maxMessageBytes: config.cdpMaxMessageBytes,
    maxClientsPerSession: config.cdpMaxClients,
    judge: parseOnly,
  });
  const unpaused = new CdpDoor({
    lookup: (id) => sessions.manager()?.get(id),
    authenticator: anyone,
    log: app.log,
    hosts: LOOPBACK_ONLY,
    maxMessageBytes: config.cdpMaxMessageBytes,
    maxClientsPerSession: config.cdpMaxClients,
    pause: false,
  });
  const doors = { unjudged, unpaused };
  const servers = {
    unjudged: createHttpServer(),
    unpaused: createHttpServer(),
  };
  for (const name of ['unjudged', 'unpaused'] as const) {
    servers[name].on('upgrade', (req, socket, head) => {
      doors[name].handleUpgrade(req, socket, head);
    });
  }
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    // The listening sockets would keep this process alive.
    pipe?.close();
    for (const name of ['unjudged', 'unpaused'] as const) {
      doors[name].close();
      servers[name].close();
    }
    void app.close().then(async () => {
      await rm(dir, { recursive: true, force: true });
      if (process.connected) {
        send({ stopped: true });
        process.disconnect();
      }
    });
  };
  process.on(
    'message',
    (
      msg:
        | { type: 'direct' | 'pipe' | 'unjudged' | 'unpaused'; id: string }
        | { type: 'cpu' }
        | { type: 'stop' },
    ) => {
      if (msg.type === 'unjudged' || msg.type === 'unpaused') {
        const server = servers[msg.type];
        server.listen(0, '127.0.0.1', () => {
          const { port } = server.address() as AddressInfo;
          send({ [msg.type]: `ws://127.0.0.1:${port}/v1/sessions/${msg.id}/cdp` });
        });
      } else if (msg.type === 'pipe') {
        const endpoint = new URL(sessions.manager()?.get(msg.id)?.browserWsEndpoint ?? '');
        pipe = createServer((client) => {
          const browser = connect(Number(endpoint.port), endpoint.hostname);
          client.setNoDelay(true);
          browser.setNoDelay(true);
          client.pipe(browser).pipe(client);
          client.on('error', () => browser.destroy());
          browser.on('error', () => client.destroy());
        });
        pipe.listen(0, '127.0.0.1', () => {
          const { port } = pipe?.address() as AddressInfo;
          send({ pipe: `ws://127.0.0.1:${port}${endpoint.pathname}` });
        });
      } else if (msg.type === 'cpu') {
        const { user, system } = process.cpuUsage();
        send({ cpu: user + system });
      } else if (msg.type === 'direct') {
        send({ direct: sessions.manager()?.get(msg.id)?.browserWsEndpoint ?? '' });
      } else {
        stop();
      }
    },
  );
  // A client that throws exits without asking: its channel closing stops the service too, so no
  // browser of the pool or of a session outlives the run.
  process.on('disconnect', stop);
  send({ base: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}` });
}

const LIVE_PAGES: Readonly<Record<string, string>> = {
  '/anim':
    '<!doctype html><style>body{margin:0}#b{width:120px;height:120px;background:red}</style><div id="b"></div>' +
    '<script>let n=0;(function t(){n++;document.getElementById("b").style.transform="translateX("+(n%300)+"px)";requestAnimationFrame(t)})()</script>',
  // What a logged-in app leaves behind: 50 cookies and 1 MB of localStorage.
  '/state':
    '<!doctype html><script>for(let i=0;i<50;i++)document.cookie="c"+i+"="+"v".repeat(40)+"; path=/; max-age=3600";' +
    'for(let i=0;i<100;i++)localStorage.setItem("k"+i,"x".repeat(10000));document.title="ready"</script>',
  '/toggle':
    '<!doctype html><style>body{margin:0}</style><button id="b" style="width:400px;height:300px" ' +
    "onclick=\"document.body.style.background=document.body.style.background==='black'?'white':'black'\">toggle</button>",
};

/** LIVE_PAGES on a loopback port, named `localhost` as the service's ALLOWED_HOSTS lets it. */
async function serveLivePages(): Promise<{ pages: Server; origin: string }> {
  const pages = createHttpServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' }).end(LIVE_PAGES[req.url ?? ''] ?? '');
  });
  await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
  return { pages, origin: `http://localhost:${(pages.address() as AddressInfo).port}` };
}

/**
 * Session start (POST /v1/sessions → 201) from a saved state of 50 cookies and 1 MB of
 * localStorage, against the same start without one, alternated so that both see the same load.
 */
async function stateStart(
  base: string,
  headers: Record<string, string>,
): Promise<Record<string, number>> {
  const { pages, origin } = await serveLivePages();
  const api = async (method: string, path: string, body?: object) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: body === undefined ? { authorization: headers['authorization'] ?? '' } : headers,
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    if (!response.ok) {
      throw new Error(`${method} ${path} answered ${response.status}: ${await response.text()}`);
    }
    return (await response.json()) as Record<string, unknown>;
  };
  try {
    const made = await api('POST', '/v1/sessions', { url: `${origin}/state` });
    const saved = await api('POST', `/v1/sessions/${String(made['id'])}/state`, { name: 'bench' });
    await api('DELETE', `/v1/sessions/${String(made['id'])}`);
    // Both kinds start from a full warm pool (docs/sessions.md#the-warm-pool), so that the
    // difference is the state's alone, not a claim against a launch.
    const poolFull = async () => {
      for (let i = 0; i < 1000; i++) {
        const metrics = await (
          await fetch(`${base}/metrics`, {
            headers: { authorization: headers['authorization'] ?? '' },
          })
        ).text();
        const gauge = (name: string) =>
          new RegExp(`^${name}(?:\\{[^}]*\\})? (\\d+)`, 'm').exec(metrics)?.[1];
        if (gauge('havn_session_pool_idle') === gauge('havn_session_pool_size')) return;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const times = { with: [] as number[], without: [] as number[] };
    for (let i = 0; i < SESSIONS; i++) {
      for (const kind of ['without', 'with'] as const) {
        await poolFull();
        const t0 = performance.now();
        const opened = await api('POST', '/v1/sessions', kind === 'with' ? { state: 'bench' } : {});
        times[kind].push(performance.now() - t0);
        await api('DELETE', `/v1/sessions/${String(opened['id'])}`);
      }
    }
    const p50 = (kind: 'with' | 'without') => Math.round(percentile(times[kind], 50));
    const bare = await bareStateStart(`${origin}/state`);
    return {
      cookies: Number(saved['cookies']),
      'state KiB': Math.round(Number(saved['bytes']) / 1024),
      'without p50 ms': p50('without'),
      'with p50 ms': p50('with'),
      'with p95 ms': Math.round(percentile(times.with, 95)),
      'added p50 ms': p50('with') - p50('without'),
      ...bare,
    };
  } finally {
    pages.close();
  }
}

/**
 * The library's own cost for the same state, as the baseline for Havn's: bare Playwright on the
 * same Chromium, `browser.newContext()` against `browser.newContext({ storageState })` with the
 * state this page leaves (50 cookies, 1 MB of localStorage), each then a page at about:blank,
 * alternated.
 */
async function bareStateStart(url: string): Promise<Record<string, number>> {
  const browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'] });
  try {
    const source = await browser.newContext();
    const page = await source.newPage();
    await page.goto(url);
    const storageState = await source.storageState();
    await source.close();
    const times = { with: [] as number[], without: [] as number[] };
    for (let i = 0; i < SESSIONS; i++) {
      for (const kind of ['without', 'with'] as const) {
        const t0 = performance.now();
        const context = await browser.newContext(kind === 'with' ? { storageState } : {});
        await context.newPage();
        times[kind].push(performance.now() - t0);
        await context.close();
      }
    }
    const p50 = (kind: 'with' | 'without') => Math.round(percentile(times[kind], 50));
    const floor = await stateFloor(browser, storageState);
    return {
      'Playwright without p50 ms': p50('without'),
      'Playwright with p50 ms': p50('with'),
      'Playwright added p50 ms': p50('with') - p50('without'),
      'floor: document p50 ms': Math.round(percentile(floor.document, 50)),
      'floor: write p50 ms': Math.round(percentile(floor.write, 50)),
      'floor: back p50 ms': Math.round(percentile(floor.back, 50)),
    };
  } finally {
    await browser.close();
  }
}

/**
 * What any start from this state pays at the least, on the same Chromium: Chromium writes an
 * origin's localStorage only from a document of that origin, so a page at about:blank is sent to
 * the origin (its document answered by the page's own interception, as the service does: no
 * request leaves), one evaluation writes the 1 MB, and the page goes back to about:blank with no
 * history, as a client finds a session's page. Each step is timed on its own, from a page made
 * beforehand; the cookies and the page itself are left out.
 */
async function stateFloor(
  browser: Browser,
  state: Awaited<ReturnType<BrowserContext['storageState']>>,
): Promise<{ document: number[]; write: number[]; back: number[] }> {
  const [origin] = state.origins;
  if (!origin) throw new Error('the state has no origin');
  const entries = JSON.stringify(origin.localStorage);
  const floor = { document: [] as number[], write: [] as number[], back: [] as number[] };
  for (let i = 0; i < SESSIONS; i++) {
    const context = await browser.newContext();
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    cdp.on('Fetch.requestPaused', ({ requestId }) => {
      cdp
        .send('Fetch.fulfillRequest', {
          requestId,
          responseCode: 200,
          responseHeaders: [{ name: 'content-type', value: 'text/html' }],
          body: '',
        })
        .catch(() => undefined);
    });
    await Promise.all([
      cdp.send('Page.enable'),
      cdp.send('Fetch.enable', { patterns: [{ urlPattern: '*', resourceType: 'Document' }] }),
    ]);
    const t0 = performance.now();
    const committed = new Promise<void>((resolve) => {
      cdp.on('Page.frameNavigated', ({ frame }) => {
        if (new URL(frame.url).origin === origin.origin) resolve();
      });
    });
    await cdp.send('Page.navigate', { url: origin.origin });
    await committed;
    const t1 = performance.now();
    const { exceptionDetails } = await cdp.send('Runtime.evaluate', {
      expression: `for (const { name, value } of ${entries}) localStorage.setItem(name, value)`,
    });
    const t2 = performance.now();
    if (exceptionDetails) throw new Error(`the floor's write failed: ${exceptionDetails.text}`);
    const blank = new Promise<void>((resolve) => {
      cdp.on('Page.frameNavigated', ({ frame }) => {
        if (frame.url === 'about:blank') resolve();
      });
    });
    await cdp.send('Page.navigate', { url: 'about:blank' });
    await blank;
    await acrossSwap(() => cdp.send('Page.resetNavigationHistory'));
    const t3 = performance.now();
    floor.document.push(t1 - t0);
    floor.write.push(t2 - t1);
    floor.back.push(t3 - t2);
    await context.close();
  }
  return floor;
}

/**
 * The live view as a person sees it, in a real browser: frames a second while the session's page
 * animates, and the time from a click in the view to the next frame (the page changes only when
 * clicked, so that frame is the click's).
 */
async function liveView(
  base: string,
  headers: Record<string, string>,
): Promise<Record<string, number>> {
  const { pages, origin } = await serveLivePages();
  const viewer = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'] });
  const open = async (path: string) => {
    const response = await fetch(`${base}/v1/sessions`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ url: `${origin}${path}` }),
    });
    const { liveUrl, id } = (await response.json()) as { liveUrl: string; id: string };
    const page = await viewer.newPage();
    await page.goto(liveUrl);
    while ((await page.textContent('#state')) !== 'live') await page.waitForTimeout(50);
    return { page, id };
  };
  try {
    const anim = await open('/anim');
    const frames = await anim.page.evaluate<number>(
      `new Promise((resolve) => { let n = 0; const img = document.getElementById('screen');
        img.addEventListener('load', () => n++); setTimeout(() => resolve(n), 3000); })`,
    );
    const toggle = await open('/toggle');
    const latencies: number[] = [];
    for (let i = 0; i < 20; i++) {
      const next = toggle.page.evaluate(
        `new Promise((resolve) => document.getElementById('screen').addEventListener('load', resolve, { once: true }))`,
      );
      const t0 = performance.now();
      await toggle.page.click('#screen', { position: { x: 100, y: 100 } });
      await next;
      latencies.push(performance.now() - t0);
      await toggle.page.waitForTimeout(100);
    }
    for (const id of [anim.id, toggle.id]) {
      await fetch(`${base}/v1/sessions/${id}`, {
        method: 'DELETE',
        headers: { authorization: headers['authorization'] ?? '' },
      });
    }
    return {
      fps: Math.round((frames / 3) * 10) / 10,
      'click→frame p50 ms': Math.round(percentile(latencies, 50)),
      'click→frame p95 ms': Math.round(percentile(latencies, 95)),
    };
  } finally {
    await viewer.close();
    pages.close();
  }
}

if (process.argv.includes('--serve')) {
  await serve();
} else {
  await measure();
}

/** A service in a child process running this same file; `ask` sends a message and awaits its reply. */
async function startService(poolSize: string) {
  const child = fork(fileURLToPath(import.meta.url), ['--serve'], {
    // The child runs this same TypeScript file: give it tsx's loader.
    execArgv: ['--import', import.meta.resolve('tsx/esm')],
    env: { ...process.env, BENCH_SESSION_POOL_SIZE: poolSize },
  });
  const ask = <T>(msg?: object) =>
    new Promise<T>((resolve) => {
      child.once('message', (reply) => {
        resolve(reply as T);
      });
      if (msg !== undefined) child.send(msg);
    });
  const { base } = await ask<{ base: string }>();
  return { base, ask };
}

/**
 * (e) Request to a connected Playwright client with its page at about:blank: POST /v1/sessions,
 * connectOverCDP on its cdpUrl, the default context's page. From the pool (once it holds an idle
 * browser, as it does between sessions that do not arrive at once) against the pool off.
 */
async function pooledStart(
  pooled: string,
  fresh: string,
  headers: Record<string, string>,
): Promise<Record<string, number>> {
  const idle = async () => {
    const text = await (await fetch(`${pooled}/metrics`, { headers })).text();
    return /^havn_session_pool_idle (\d+)$/m.exec(text)?.[1] === '1';
  };
  const start = async (base: string) => {
    const t0 = performance.now();
    const response = await fetch(`${base}/v1/sessions`, { method: 'POST', headers, body: '{}' });
    if (response.status !== 201) throw new Error(`POST /v1/sessions answered ${response.status}`);
    const { id, cdpUrl } = (await response.json()) as { id: string; cdpUrl: string };
    const browser = await chromium.connectOverCDP(cdpUrl);
    const page = browser.contexts()[0]?.pages()[0];
    if (page?.url() !== 'about:blank') throw new Error(`the session's page is at ${page?.url()}`);
    const ms = performance.now() - t0;
    await browser.close();
    await fetch(`${base}/v1/sessions/${id}`, {
      method: 'DELETE',
      headers: { authorization: headers['authorization'] ?? '' },
    });
    return ms;
  };
  const times = { pool: [] as number[], off: [] as number[] };
  for (let i = 0; i < SESSIONS; i++) {
    while (!(await idle())) await new Promise((resolve) => setTimeout(resolve, 50));
    times.pool.push(await start(pooled));
    times.off.push(await start(fresh));
  }
  const p50 = (kind: 'pool' | 'off') => Math.round(percentile(times[kind], 50));
  return {
    'pool p50 ms': p50('pool'),
    'pool p95 ms': Math.round(percentile(times.pool, 95)),
    'off p50 ms': p50('off'),
    'off p95 ms': Math.round(percentile(times.off, 95)),
    'pool/off p50': Number((p50('pool') / p50('off')).toFixed(2)),
  };
}

async function measure(): Promise<void> {
  const { base, ask } = await startService('1');
  const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

  // (a) session start.
  const starts: number[] = [];
  for (let i = 0; i < SESSIONS; i++) {
    const t0 = performance.now();
    const response = await fetch(`${base}/v1/sessions`, { method: 'POST', headers, body: '{}' });
    const ms = performance.now() - t0;
    if (response.status !== 201) throw new Error(`POST /v1/sessions answered ${response.status}`);
    starts.push(ms);
    const { id } = (await response.json()) as { id: string };
    await fetch(`${base}/v1/sessions/${id}`, {
      method: 'DELETE',
      headers: { authorization: headers.authorization },
    });
  }

  // (b) round trips: the same page, through the door and directly.
  /** Runtime.evaluate('1') for `ms` with `window` commands in flight; round trips per second. */
  async function roundTrips(url: string, ms: number, window: number): Promise<number> {
    return (await timedRoundTrips(url, ms, window)).perSecond;
  }

  /** As roundTrips, plus the service process's CPU time per round trip (µs). */
  async function timedRoundTrips(url: string, ms: number, window: number) {
    const before = await ask<{ cpu: number }>({ type: 'cpu' });
    const done = await countRoundTrips(url, ms, window);
    const after = await ask<{ cpu: number }>({ type: 'cpu' });
    return { perSecond: done / (ms / 1000), cpuPerTrip: (after.cpu - before.cpu) / done };
  }

  const created = await fetch(`${base}/v1/sessions`, { method: 'POST', headers, body: '{}' });
  const { id, cdpUrl } = (await created.json()) as { id: string; cdpUrl: string };
  const { direct } = await ask<{ direct: string }>({ type: 'direct', id });
  const { pipe } = await ask<{ pipe: string }>({ type: 'pipe', id });
  const unjudged =
    (await ask<{ unjudged: string }>({ type: 'unjudged', id })).unjudged + new URL(cdpUrl).search;
  const unpaused =
    (await ask<{ unpaused: string }>({ type: 'unpaused', id })).unpaused + new URL(cdpUrl).search;
  const rows: Record<string, string | number>[] = [];
  for (const window of [1, WINDOW]) {
    // Warm every path, then alternate short rounds so that all see the same machine load.
    for (const url of [direct, pipe, unjudged, unpaused, cdpUrl]) {
      await roundTrips(url, 300, window);
    }
    let d = 0;
    let before = 0;
    let hop = 0;
    let bare = 0;
    let p = 0;
    let cpuBare = 0;
    let cpu = 0;
    for (let round = 0; round < ROUNDS; round++) {
      d += (await roundTrips(direct, ROUND_TRIP_MS / ROUNDS, window)) / ROUNDS;
      hop += (await roundTrips(pipe, ROUND_TRIP_MS / ROUNDS, window)) / ROUNDS;
      const plain = await timedRoundTrips(unjudged, ROUND_TRIP_MS / ROUNDS, window);
      bare += plain.perSecond / ROUNDS;
      cpuBare += plain.cpuPerTrip / ROUNDS;
      before += (await roundTrips(unpaused, ROUND_TRIP_MS / ROUNDS, window)) / ROUNDS;
      const door = await timedRoundTrips(cdpUrl, ROUND_TRIP_MS / ROUNDS, window);
      p += door.perSecond / ROUNDS;
      cpu += door.cpuPerTrip / ROUNDS;
    }
    rows.push({
      'in flight': window,
      'direct rt/s': Math.round(d),
      'pipe rt/s': Math.round(hop),
      'unjudged rt/s': Math.round(bare),
      'unpaused rt/s': Math.round(before),
      'door rt/s': Math.round(p),
      'door/direct': p / d,
      'door/pipe': p / hop,
      'door/unjudged': p / bare,
      'door/unpaused': p / before,
      // The door's own cost, less sensitive to the machine's load than the rates are.
      'unjudged CPU µs/rt': Math.round(cpuBare),
      'door CPU µs/rt': Math.round(cpu),
    });
  }
  const live = await liveView(base, headers);
  const state = await stateStart(base, headers);
  const off = await startService('0');
  const pool = await pooledStart(base, off.base, headers);
  await off.ask({ type: 'stop' });
  await ask({ type: 'stop' });

  printTable(`session start (POST /v1/sessions → 201, ${SESSIONS} sessions, ${chromiumPath})`, [
    {
      p50: Math.round(percentile(starts, 50)),
      p95: Math.round(percentile(starts, 95)),
      min: Math.round(Math.min(...starts)),
      max: Math.round(Math.max(...starts)),
    },
  ]);
  printTable(
    "CDP round trips, Runtime.evaluate('1'): the browser's own socket, a plain pipe, a door that judges nothing, one that never pauses, the door",
    rows,
  );
  printTable(
    'live view in a real browser: frames a second on an animated page, click to the next frame',
    [live],
  );
  printTable(
    `session start from a saved state (50 cookies, 1 MB of localStorage) against none, ${SESSIONS} each, alternated`,
    [state],
  );
  printTable(
    `session start to a connected Playwright client (connectOverCDP, page at about:blank): from the pool against SESSION_POOL_SIZE=0, ${SESSIONS} each, alternated`,
    [pool],
  );
  const [seq, piped] = rows;
  printSummary(
    'sessions',
    `start p50 ${Math.round(percentile(starts, 50))} ms, p95 ${Math.round(percentile(starts, 95))} ms; ` +
      `from a state +${state['added p50 ms']} ms p50 (goal <= +50; bare Playwright's own +${state['Playwright added p50 ms']} ms; ` +
      `the floor, a document of the origin, the write and back to about:blank, ${state['floor: document p50 ms']} + ${state['floor: write p50 ms']} + ${state['floor: back p50 ms']} ms); ` +
      `to a connected client from the pool p50 ${pool['pool p50 ms']} ms against ${pool['off p50 ms']} ms with the pool off (${pool['pool/off p50']}; goal <= 80 ms); ` +
      `live view ${live.fps} fps (goal >= 10), click to frame p50 ${live['click→frame p50 ms']} ms, p95 ${live['click→frame p95 ms']} ms (goal p50 < 150); ` +
      `door/pipe ${Number(seq?.['door/pipe']).toFixed(2)} sequential, ${Number(piped?.['door/pipe']).toFixed(2)} with ${WINDOW} in flight (goal >= 0.95); ` +
      `backpressure cost: door/unpaused ${Number(seq?.['door/unpaused']).toFixed(2)} and ${Number(piped?.['door/unpaused']).toFixed(2)} (goal >= 0.95); ` +
      `allow-list cost: door/unjudged ${Number(seq?.['door/unjudged']).toFixed(2)} and ${Number(piped?.['door/unjudged']).toFixed(2)}; ` +
      `door/direct ${Number(seq?.['door/direct']).toFixed(2)} and ${Number(piped?.['door/direct']).toFixed(2)}`,
  );
}
