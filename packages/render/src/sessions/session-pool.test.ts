import { chmod, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableMemory } from '../browser/memory-pressure.js';
import { BUILT_IN_PROFILES } from '../profiles.js';
import { processesWithHomeUnder } from '../test-support/browser-processes.js';
import { startFixtureServer, type FixtureServer } from '../test-support/fixture-server.js';
import { startService, type TestService } from '../test-support/service.js';
import { sessionsExtension } from './sessions-extension.js';
import { rawClient } from './test-support/cdp-client.js';

// The warm pool (docs/sessions.md#the-warm-pool), against real Chromium: one service with a pool
// of one and one with the pool off, side by side. A session on a pooled browser must answer inside
// the page exactly as one on a freshly launched browser does, for every built-in profile, in the
// default context, in a popup and in a context the client makes; and the pool's browsers are the service's
// to kill and clean up.

interface Side {
  svc: TestService;
  /** Parent of the service's session folders: every browser it runs has its HOME below. */
  tmp: string;
}

let pooled: Side;
let fresh: Side;
let fixture: FixtureServer;
/** The request headers each page load sent to the fixture, by the `n` in its query. */
const seen = new Map<string, { ua?: string; lang?: string }>();

/** Memory the pooled side's pool sees as available: the kernel's, or none while this is set. */
let memoryShort = false;

async function start(poolSize: string): Promise<Side> {
  const tmp = await mkdtemp(join(tmpdir(), 'havn-pool-test-'));
  // The browsers' own uids pass through it to their session folders, as through the OS temp dir.
  await chmod(tmp, 0o711);
  const svc = await startService(
    { ALLOWED_HOSTS: 'localhost', MAX_SESSIONS: '2', SESSION_POOL_SIZE: poolSize },
    {
      extensions: [
        sessionsExtension({
          tmpDir: tmp,
          memoryAvailable: () => (memoryShort ? 0 : availableMemory()),
          poolCheckEveryMs: 200,
        }),
      ],
    },
  );
  return { svc, tmp };
}

beforeAll(async () => {
  fixture = await startFixtureServer({
    '/probe': (req, res) => {
      const n = new URL(req.url ?? '/', 'http://x').searchParams.get('n') ?? '';
      seen.set(n, { ua: req.headers['user-agent'], lang: req.headers['accept-language'] });
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><title>probe</title>');
    },
  });
  [pooled, fresh] = await Promise.all([start('1'), start('0')]);
}, 60_000);

afterAll(async () => {
  // The pooled side's app closed in its test already; closing again only removes its folder.
  await Promise.all([pooled.svc.close(), fresh.svc.close()]);
  await fixture.close();
  await Promise.all([pooled, fresh].map((side) => rm(side.tmp, { recursive: true, force: true })));
});

/** The figures /metrics shows for the pool. */
async function poolMetrics(side: Side): Promise<Record<string, number>> {
  const text = await (await side.svc.call('/metrics')).text();
  const figures: Record<string, number> = {};
  for (const [, name, value] of text.matchAll(/^havn_session_pool_([a-z]+)(?:_total)? (\d+)$/gm)) {
    figures[name!] = Number(value);
  }
  return figures;
}

async function idleOne(side: Side): Promise<void> {
  await expect.poll(async () => (await poolMetrics(side))['idle'], { timeout: 30_000 }).toBe(1);
}

/** Everything a page can tell about its profile, read from inside it. */
const PROBE = `JSON.stringify({
  ua: navigator.userAgent,
  width: innerWidth, height: innerHeight, outerWidth, outerHeight,
  screen: [screen.width, screen.height, screen.orientation.type],
  scale: devicePixelRatio,
  timezone: Intl.DateTimeFormat().resolvedOptions().timeZone,
  offset: new Date(2026, 0, 1).getTimezoneOffset(),
  locale: Intl.DateTimeFormat().resolvedOptions().locale,
  language: navigator.language, languages: navigator.languages,
  touchPoints: navigator.maxTouchPoints, touchEvents: 'ontouchstart' in window,
  coarse: matchMedia('(pointer: coarse)').matches,
  dark: matchMedia('(prefers-color-scheme: dark)').matches,
  motion: matchMedia('(prefers-reduced-motion: reduce)').matches,
  hints: navigator.userAgentData && {
    mobile: navigator.userAgentData.mobile,
    platform: navigator.userAgentData.platform,
    brands: navigator.userAgentData.brands.map((b) => b.brand),
  },
})`;

let probes = 0;

/**
 * Opens a session with `profile` on `side`, at the fixture's probe page, and reads the probe in
 * its page, in a popup that page opens, and in a page of a fresh context the client makes; then
 * closes it. Returns what each page said and what its request headers were.
 */
async function probe(side: Side, profile: string) {
  const n = String(++probes);
  const created = await side.svc.post('/v1/sessions', {
    profile,
    url: `${fixture.origin}/probe?n=${n}`,
  });
  expect(created.status).toBe(201);
  const cdp = await rawClient(created.body['cdpUrl'] as string);
  try {
    const evaluate = async (sessionId: string, expression: string) =>
      (
        await cdp.command(
          'Runtime.evaluate',
          { expression, returnByValue: true, userGesture: true },
          sessionId,
        )
      ).result?.['result'] as { value: unknown } | undefined;
    /** The probe in the page `targetId`, once it has loaded. */
    const read = async (targetId: string) => {
      const reply = await cdp.command('Target.attachToTarget', { targetId, flatten: true });
      const sessionId = reply.result?.['sessionId'] as string;
      await expect
        .poll(() => evaluate(sessionId, 'document.title'), { timeout: 15_000 })
        .toMatchObject({ value: 'probe' });
      return {
        sessionId,
        said: JSON.parse(String((await evaluate(sessionId, PROBE))?.value)) as unknown,
      };
    };
    const pages = async () =>
      (
        (await cdp.command('Target.getTargets')).result?.['targetInfos'] as {
          targetId: string;
          type: string;
          openerId?: string;
        }[]
      ).filter((t) => t.type === 'page');
    const [page] = await pages();
    const own = await read(page!.targetId);
    const n2 = String(++probes);
    await evaluate(own.sessionId, `void window.open('/probe?n=${n2}')`);
    let popupId: string | undefined;
    await expect
      .poll(
        async () =>
          (popupId = (await pages()).find((t) => t.openerId === page!.targetId)?.targetId),
      )
      .toBeDefined();
    const popup = await read(popupId!);
    const context = await cdp.command('Target.createBrowserContext');
    const n3 = String(++probes);
    const made = await cdp.command('Target.createTarget', {
      url: `${fixture.origin}/probe?n=${n3}`,
      browserContextId: context.result?.['browserContextId'],
    });
    const clients = await read(made.result?.['targetId'] as string);
    return {
      own: own.said,
      ownHeaders: seen.get(n),
      popup: popup.said,
      popupHeaders: seen.get(n2),
      clients: clients.said,
      clientHeaders: seen.get(n3),
    };
  } finally {
    cdp.close();
    expect(
      (await side.svc.call(`/v1/sessions/${created.body['id'] as string}`, { method: 'DELETE' }))
        .status,
    ).toBe(200);
  }
}

/** The session folders below `side.tmp` (each browser's, pooled or running). */
async function folders(side: Side): Promise<string[]> {
  return (await readdir(side.tmp)).filter((name) => name.startsWith('havn-session-')).sort();
}

describe('the warm pool of session browsers', () => {
  it('pre-launches with SESSION_POOL_SIZE=1 and launches nothing with SESSION_POOL_SIZE=0', async () => {
    await idleOne(pooled);
    expect(processesWithHomeUnder(pooled.tmp).length).toBeGreaterThan(0);
    expect(await folders(pooled)).toHaveLength(1);
    expect(processesWithHomeUnder(fresh.tmp)).toEqual([]);
    expect(await folders(fresh)).toEqual([]);
    expect(await poolMetrics(fresh)).toEqual({ size: 0, idle: 0, claims: 0, misses: 0 });
  });

  it('answers inside the page exactly as a fresh browser does, for every built-in profile', async () => {
    let claimed: string[] = [];
    for (const [i, profile] of BUILT_IN_PROFILES.entries()) {
      // The fresh side's session while the pool refills from the last claim.
      const [expected] = await Promise.all([probe(fresh, profile.name), idleOne(pooled)]);
      // The browser claimed last is gone with its session, folder and processes; this one is new.
      const idle = await folders(pooled);
      expect(idle).toHaveLength(1);
      expect(claimed).not.toContain(idle[0]);
      for (const gone of claimed)
        expect(processesWithHomeUnder(join(pooled.tmp, gone))).toEqual([]);
      claimed = idle;
      const got = await probe(pooled, profile.name);
      expect({ profile: profile.name, ...got }).toEqual({ profile: profile.name, ...expected });
      // What the profile says, so that two equal wrong answers cannot pass.
      // (A mobile page without a viewport tag lays out 980 px wide, as a phone does.)
      const { screen } = got.own as { screen: unknown[] };
      expect(screen.slice(0, 2)).toEqual([profile.viewport.width, profile.viewport.height]);
      expect(got.own).toMatchObject({
        ...(!profile.isMobile && { width: profile.viewport.width }),
        scale: profile.deviceScaleFactor,
        timezone: profile.timezone,
        language: profile.locale,
        touchPoints: profile.hasTouch ? 1 : 0,
        dark: profile.colorScheme === 'dark',
      });
      // A popup the page opens, and its request, carry the profile too.
      expect(got.popup).toMatchObject({
        ua: (got.own as { ua: string }).ua,
        scale: profile.deviceScaleFactor,
        timezone: profile.timezone,
        language: profile.locale,
      });
      expect(got.popupHeaders).toEqual(got.ownHeaders);
      expect(got.ownHeaders?.lang).toBe(profile.locale);
      expect(got.ownHeaders?.ua).toBe((got.own as { ua: string }).ua);
      expect(got.ownHeaders?.ua).not.toContain('Headless');
      expect(await poolMetrics(pooled)).toMatchObject({ size: 1, claims: i + 1, misses: 0 });
    }
  }, 300_000);

  it('gives its idle browsers back when memory runs short, and refills once memory is back', async () => {
    await idleOne(pooled);
    // Exhausting the machine's memory is not for a shared test run: the pool's reading says so.
    memoryShort = true;
    try {
      await expect
        .poll(async () => (await poolMetrics(pooled))['idle'], { timeout: 15_000 })
        .toBe(0);
      await expect.poll(() => processesWithHomeUnder(pooled.tmp), { timeout: 15_000 }).toEqual([]);
      await expect.poll(() => folders(pooled), { timeout: 15_000 }).toEqual([]);
      // Sessions still start, each on a browser of its own.
      const { misses } = await poolMetrics(pooled);
      const created = await pooled.svc.post('/v1/sessions', {});
      expect(created.status).toBe(201);
      expect(await poolMetrics(pooled)).toMatchObject({ idle: 0, misses: misses! + 1 });
      const id = created.body['id'] as string;
      expect((await pooled.svc.call(`/v1/sessions/${id}`, { method: 'DELETE' })).status).toBe(200);
      expect(await folders(pooled)).toEqual([]);
    } finally {
      memoryShort = false;
    }
    await idleOne(pooled);
  }, 60_000);

  it('replaces an idle browser that dies, and removes what it left', async () => {
    await idleOne(pooled);
    const [dead] = await folders(pooled);
    for (const pid of processesWithHomeUnder(pooled.tmp)) process.kill(pid, 'SIGKILL');
    await expect
      .poll(async () => (await folders(pooled)).filter((name) => name !== dead), {
        timeout: 30_000,
      })
      .toHaveLength(1);
    await idleOne(pooled);
    expect(await folders(pooled)).not.toContain(dead);
    // The new one serves a session.
    const { claims } = await poolMetrics(pooled);
    const created = await pooled.svc.post('/v1/sessions', {});
    expect(created.status).toBe(201);
    expect(await poolMetrics(pooled)).toMatchObject({ claims: claims! + 1 });
    const id = created.body['id'] as string;
    expect((await pooled.svc.call(`/v1/sessions/${id}`, { method: 'DELETE' })).status).toBe(200);
  }, 60_000);

  it('kills idle pooled browsers at shutdown, leaving no process and no folder', async () => {
    await idleOne(pooled);
    expect(processesWithHomeUnder(pooled.tmp).length).toBeGreaterThan(0);
    await pooled.svc.app.close();
    expect(processesWithHomeUnder(pooled.tmp)).toEqual([]);
    expect(await folders(pooled)).toEqual([]);
  }, 60_000);
});
