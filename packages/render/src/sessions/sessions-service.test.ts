import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import puppeteer from 'puppeteer-core';
import { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '@havn/shared';
import { composeServer } from '../compose.js';
import { loadConfig } from '../config.js';
import { BUILT_IN_PROFILES, builtInProfile } from '../profiles.js';
import type { App } from '../server-context.js';
import { jsonApi, type JsonApi } from '../test-support/json-api.js';
import { sessionsExtension } from './sessions-extension.js';
import { startFixtureServer, type TestServer } from './test-support/fixture-server.js';

// Sessions inside the real render service: its config, auth hook, guard proxy, filesystem
// artifact store and health, wired the way main.ts wires them; and graceful shutdown.

const TOKEN = 'service-token-sessions-0123456789';
let app: App;
let base: string;
let api: JsonApi;
let dir: string;
let fixture: TestServer;
let closed = false;
const logs: string[] = [];
const auth = { authorization: `Bearer ${TOKEN}` };

beforeAll(async () => {
  fixture = await startFixtureServer();
  dir = await mkdtemp(join(tmpdir(), 'havn-sessions-service-'));
  const config = loadConfig({
    PATH: process.env['PATH'],
    BROWSER_API_TOKEN: TOKEN,
    ARTIFACT_DIR: join(dir, 'artifacts'),
    ALLOWED_HOSTS: 'localhost',
    MAX_CONCURRENCY: '1',
    MAX_SESSIONS: '3',
    PUBLIC_BASE_URL: 'https://render.example.com',
  });
  app = await composeServer({
    config,
    log: createLogger({
      name: 'sessions-service-test',
      destination: new Writable({
        write(chunk: Buffer, _encoding, done) {
          logs.push(chunk.toString());
          done();
        },
      }),
    }),
    extensions: [sessionsExtension({ reaperIntervalMs: 200 })],
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  api = jsonApi(base, auth);
});
afterAll(async () => {
  if (!closed) await app.close();
  await fixture.close();
  await rm(dir, { recursive: true, force: true });
});

/** The door on this test's real address (cdpUrl names the public one, PUBLIC_BASE_URL). */
function localDoor(cdpUrl: string): string {
  const url = new URL(cdpUrl);
  return `${base.replace(/^http/, 'ws')}${url.pathname}${url.search}`;
}

/** The session's mp4 is listed once it closed, and the log line says how it closed. */
async function expectRecording(id: string, how: string): Promise<void> {
  await expect
    .poll(async () => (await api('GET', `/v1/artifacts?session=${id}`)).body['artifacts'], {
      timeout: 15_000,
    })
    .toMatchObject([{ contentType: 'video/mp4', session: id }]);
  const artifacts = (await api('GET', `/v1/artifacts?session=${id}`)).body['artifacts'] as {
    id: string;
  }[];
  const closedLine = () =>
    logs.find((l) => l.includes(`"session":"${id}"`) && l.includes('session closed'));
  await expect.poll(closedLine).toContain(`session closed (${how})`);
  const line = closedLine();
  expect(line).toContain(artifacts[0]!.id);
}

describe('sessions in the render service', () => {
  it('gives a session every field of its profile exactly as a render gets it', async () => {
    for (const profile of BUILT_IN_PROFILES) {
      const render = await api('POST', '/v1/render', {
        url: `${fixture.url}/probe?render-${profile.name}`,
        profile: profile.name,
      });
      expect(render.status, profile.name).toBe(200);
      const session = await api('POST', '/v1/sessions', {
        url: `${fixture.url}/probe?session-${profile.name}`,
        profile: profile.name,
      });
      expect(session.status, profile.name).toBe(201);
      await api('DELETE', `/v1/sessions/${String(session.body['id'])}`);
      const inRender = fixture.reports.get(`render-${profile.name}`);
      const inSession = fixture.reports.get(`session-${profile.name}`);
      expect(inSession, profile.name).toEqual(inRender);
      expect(inRender, profile.name).toMatchObject({
        width: profile.viewport.width,
        height: profile.viewport.height,
        dpr: profile.deviceScaleFactor,
        touch: profile.hasTouch,
        language: profile.locale,
        timezone: profile.timezone,
        dark: profile.colorScheme === 'dark',
      });
      expect(String(inRender?.['ua']), profile.name).not.toContain('HeadlessChrome');
      expect(String(inRender?.['ua']), profile.name).toMatch(
        profile.isMobile ? /Android.*Chrome\/\d+/ : /X11; Linux x86_64.*Chrome\/\d+/,
      );
    }
  });

  it('builds cdpUrl from PUBLIC_BASE_URL, applies profile, headers and cookies, counts in health', async () => {
    const created = await api('POST', '/v1/sessions', {
      url: `${fixture.url}/echo`,
      profile: 'mobile',
      headers: { 'x-test': 'yes' },
      cookies: [{ name: 'flavour', value: 'oat', url: fixture.url }],
    });
    expect(created.status).toBe(201);
    const cdpUrl = created.body['cdpUrl'] as string;
    expect(cdpUrl).toMatch(
      /^wss:\/\/render\.example\.com\/v1\/sessions\/[\w-]+\/cdp\?token=[\w-]{32}$/,
    );
    expect(created.body['profile']).toBe('mobile');
    expect((await api('GET', '/healthz', undefined, {})).body['sessions']).toBe(1);

    const browser = await puppeteer.connect({
      browserWSEndpoint: localDoor(cdpUrl),
      defaultViewport: null,
    });
    const [page] = await browser.pages();
    expect(
      JSON.parse((await page!.evaluate('document.querySelector("#echo").textContent')) as string),
    ).toEqual({
      xTest: 'yes',
      cookie: 'flavour=oat',
    });
    // The profile holds for pages the client opens itself too.
    const own = await browser.newPage();
    await own.goto(`${fixture.url}/`);
    const mobile = builtInProfile('mobile')!;
    expect(
      await own.evaluate(
        '[screen.width, devicePixelRatio, navigator.language, matchMedia("(pointer: coarse)").matches]',
      ),
    ).toEqual([mobile.viewport.width, mobile.deviceScaleFactor, 'da-DK', true]);
    await browser.disconnect();

    // The service's own hook stands aside for discovery, which takes the session token.
    const token = new URL(cdpUrl).searchParams.get('token')!;
    const id = created.body['id'] as string;
    const version = await fetch(`${base}/v1/sessions/${id}/json/version?token=${token}`);
    expect(version.status).toBe(200);
    expect(((await version.json()) as Record<string, string>)['webSocketDebuggerUrl']).toBe(cdpUrl);
    expect(
      (await api('GET', `/v1/sessions/${id}`, undefined, { authorization: `Bearer ${token}` }))
        .status,
    ).toBe(401);
    expect((await api('DELETE', `/v1/sessions/${id}`)).status).toBe(200);
    expect((await api('GET', '/healthz', undefined, {})).body['sessions']).toBe(0);
  });

  it('takes an inline profile, and a full-page screenshot is as wide as its viewport', async () => {
    const bad = await api('POST', '/v1/sessions', { profile: { viewport: { width: 0 } } });
    expect(bad.status).toBe(400);
    expect(bad.body['error']).toMatch(/^profile\.viewport\.width/);
    const created = await api('POST', '/v1/sessions', {
      profile: { name: 'desktop', viewport: { width: 500, height: 300 } },
      url: `${fixture.url}/`,
    });
    expect(created.status).toBe(201);
    const id = created.body['id'] as string;
    const shot = await api('POST', `/v1/sessions/${id}/screenshot`, { fullPage: true });
    expect(shot.status).toBe(200);
    const png = Buffer.from(
      await (await fetch(`${base}${shot.body['url'] as string}`, { headers: auth })).arrayBuffer(),
    );
    expect(png.readUInt32BE(16)).toBe(500);
    expect(png.readUInt32BE(20)).toBeGreaterThanOrEqual(300);
    expect((await api('DELETE', `/v1/sessions/${id}`)).body['artifacts']).toHaveLength(1);
  });

  it('refuses a private url early with the service message', async () => {
    const refused = await api('POST', '/v1/sessions', { url: 'http://[::ffff:127.0.0.1]:9/' });
    expect(refused.status).toBe(400);
    expect(refused.body['error']).toMatch(/IPv4-mapped spelling of loopback 127\.0\.0\.0\/8/);
  });

  it('closes a session whose browser a client shut down', async () => {
    const created = await api('POST', '/v1/sessions', { record: true, url: `${fixture.url}/anim` });
    const id = created.body['id'] as string;
    expect((await api('GET', `/v1/sessions/${id}/events`)).body).toEqual({
      id,
      state: 'live',
      events: [],
    });
    const ws = new WebSocket(localDoor(created.body['cdpUrl'] as string));
    await new Promise((resolve) => ws.once('open', resolve));
    ws.send(JSON.stringify({ id: 1, method: 'Browser.close' }));
    await expect
      .poll(async () => (await api('GET', `/v1/sessions/${id}`)).status, { timeout: 15_000 })
      .toBe(404);
    ws.close();
    await expectRecording(id, 'browser exited');
    // docs/sessions.md#after-a-session-closes: still 404, but how it ended can be read.
    expect((await api('GET', `/v1/sessions/${id}`)).body).toEqual({
      error: `session ${id} is closed (browser exited); GET /v1/sessions/${id}/events says why`,
    });
    expect((await api('GET', `/v1/sessions/${id}/events`)).body).toMatchObject({
      id,
      state: 'closed',
      closedBecause: 'browser exited',
      events: [],
    });
    expect((await api('GET', '/v1/sessions/no-such-session/events')).body).toEqual({
      error: 'no session no-such-session',
    });
  });

  it('keeps the recording of a session whose lease ran out, listed by session and label', async () => {
    const created = await api('POST', '/v1/sessions', {
      record: true,
      ttlMs: 1000,
      url: `${fixture.url}/anim`,
      labels: { job: 'lease' },
    });
    const id = created.body['id'] as string;
    await expect
      .poll(async () => (await api('GET', `/v1/sessions/${id}`)).status, { timeout: 15_000 })
      .toBe(404);
    await expectRecording(id, 'lease expired');
    const byLabel = await api('GET', '/v1/artifacts?label=job:lease&limit=1');
    expect(byLabel.body['artifacts']).toMatchObject([{ session: id, contentType: 'video/mp4' }]);
    expect((await api('GET', '/v1/artifacts?label=job')).status).toBe(400);
    expect((await api('GET', '/v1/artifacts?cursor=xyz')).status).toBe(400);
    expect((await api('GET', '/v1/artifacts?limit=0')).body).toEqual({
      error: 'limit must be from 1 to 500',
    });
  });

  it('on close, stops taking sessions and closes every live one as DELETE does, video stitched', async () => {
    const created = await api('POST', '/v1/sessions', {
      record: { fps: 10 },
      url: `${fixture.url}/anim`,
      labels: { run: 'shutdown' },
    });
    const ws = new WebSocket(localDoor(created.body['cdpUrl'] as string));
    await new Promise((resolve) => ws.once('open', resolve));
    const disconnected = new Promise<number>((resolve) => {
      ws.once('close', (code) => {
        resolve(code);
      });
    });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await app.close();
    closed = true;
    expect(await disconnected).toBe(1001);
    // The video landed in the filesystem store, with the session's labels.
    const { FsArtifactStore } = await import('../artifacts/fs-artifact-store.js');
    const fsStore = new FsArtifactStore({ dir: join(dir, 'artifacts'), ttlMs: 60_000 });
    const { readdir, readFile } = await import('node:fs/promises');
    const descriptors = await Promise.all(
      (await readdir(join(dir, 'artifacts')))
        .filter((f) => f.endsWith('.json'))
        .map(async (f) => fsStore.describe(f.slice(0, -5))),
    );
    const video = descriptors.find(
      (d) => d?.contentType === 'video/mp4' && d.labels['run'] === 'shutdown',
    );
    expect(video).toBeDefined();
    const bytes = await readFile(join(dir, 'artifacts', `${video!.id}.bin`));
    expect(bytes.subarray(4, 8).toString('latin1')).toBe('ftyp');
  });
});
