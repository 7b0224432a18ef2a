import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import puppeteer from 'puppeteer-core';
import { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, dropTestDatabase } from '../../../../test-support/test-database.js';
import {
  html,
  startCanary,
  startFixtureServer,
  type Canary,
  type FixtureServer,
} from '../test-support/fixture-server.js';
import { startBalancer, type Balancer } from '../test-support/nginx.js';
import { startRenderInstance, type RenderInstance } from '../test-support/render-instances.js';
import { startS3StandIn, type S3StandIn } from '../../../../test-support/s3-stand-in.js';
import { TEST_TOKEN } from '../test-support/service.js';
import { loadConfig } from '../config.js';
import { attachToPage, rawClient, type CdpMessage } from '../sessions/test-support/cdp-client.js';
import {
  privateSpellings,
  REFUSED_COMMANDS,
  REFUSED_URLS,
} from '../sessions/test-support/door-corpus.js';

// Render on several instances (docs/render.md#several-instances), as an operator runs it: two
// real instances (processes of their own) on one PostgreSQL, behind nginx from Debian balancing
// round robin with no stickiness. The same scenario runs with the artifact bytes in a shared
// ARTIFACT_DIR and in S3 (the s3rver stand-in, root test-support/, says why).

// Two cores shared with other tests: a heartbeat that a loaded machine still keeps.
const HEARTBEAT_MS = 1000;
/** What a forwarded request carries: derived from the token every instance shares. */
const CREDENTIAL = loadConfig({
  PATH: process.env.PATH,
  BROWSER_API_TOKEN: TEST_TOKEN,
  DATABASE_URL: 'postgres://render@db.test/havn',
}).cluster!.credential;

const auth = { authorization: `Bearer ${TEST_TOKEN}` };

let s3: S3StandIn;
let fixture: FixtureServer;
let canary: Canary;
beforeAll(async () => {
  s3 = await startS3StandIn();
  canary = await startCanary();
  fixture = await startFixtureServer({
    '/': html('<h1 id="t">Cluster page</h1>', '<title>Cluster page</title>'),
  });
});
afterAll(async () => {
  expect(canary.connections()).toBe(0);
  await canary.close();
  await fixture.close();
  await s3.close();
});

interface Descriptor {
  id: string;
  cdpUrl: string;
  liveUrl: string;
  artifacts: { id: string; url: string; contentType: string }[];
}

async function json(res: Response): Promise<Record<string, unknown>> {
  return (await res.json()) as Record<string, unknown>;
}

const stores = [
  { name: 'a shared ARTIFACT_DIR', env: (): Record<string, string> => ({}) },
  {
    name: 'S3',
    env: (): Record<string, string> => ({
      ...s3.env,
      ARTIFACT_STORE: `s3://${s3.bucket}/scenario-${String(Date.now())}`,
    }),
  },
];

describe.each(stores)('two render instances behind nginx, artifacts in $name', ({ env }) => {
  let dir: string;
  let databaseUrl: string | undefined;
  let shared: Record<string, string>;
  const instances: RenderInstance[] = [];
  let lb: Balancer;

  const call = (
    base: string,
    path: string,
    init: Omit<RequestInit, 'headers'> & { headers?: Record<string, string> } = {},
  ) => fetch(`${base}${path}`, { ...init, headers: { ...auth, ...init.headers } });
  const create = (base: string, body: Record<string, unknown> = {}) =>
    call(base, '/v1/sessions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  /** The instance that owns a session, by the sessions each reports as its own. */
  const ownerOf = (id: string): RenderInstance => {
    for (const instance of instances) {
      const own = instance.logs.some(
        (l) => l.includes(`"session":"${id}"`) && l.includes('session opened'),
      );
      if (own) return instance;
    }
    throw new Error(`no instance opened ${id}`);
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'havn-cluster-'));
    databaseUrl = await createTestDatabase();
    shared = {
      DATABASE_URL: databaseUrl!,
      ARTIFACT_DIR: join(dir, 'artifacts'),
      ALLOWED_HOSTS: 'localhost',
      MAX_SESSIONS: '1',
      CLUSTER_HEARTBEAT_MS: String(HEARTBEAT_MS),
      DRAIN_TIMEOUT_MS: '3000',
      ...env(),
    };
    // One machine: each instance's browsers get uids of their own.
    instances.push(
      ...(await Promise.all([
        startRenderInstance('a', { ...shared, BROWSER_UIDS: '64100-64109' }),
        startRenderInstance('b', { ...shared, BROWSER_UIDS: '64110-64119' }),
      ])),
    );
    lb = await startBalancer(instances.map((i) => `127.0.0.1:${String(i.port)}`));
  });

  afterAll(async () => {
    await lb.close();
    await Promise.all(instances.map((i) => i.stop('SIGKILL')));
    await dropTestDatabase(databaseUrl);
    await rm(dir, { recursive: true, force: true });
  });

  it('serves every render through the balancer, each artifact fetched ten times', async () => {
    const made: { id: string; url: string; bytes: number }[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await call(lb.base, '/v1/render', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ html: `<h1>render ${String(i)}</h1>`, labels: { run: 'lb' } }),
      });
      expect(res.status).toBe(200);
      made.push((await json(res))['artifact'] as { id: string; url: string; bytes: number });
    }
    // Both instances rendered (round robin), and every fetch, on either, answers the bytes.
    for (const instance of instances) {
      expect(instance.logs.some((l) => l.includes('"url":"/v1/render"'))).toBe(true);
      // Each instance's metrics carry its name, so that a scrape of both adds up.
      const metrics = await (await call(instance.base, '/metrics')).text();
      expect(metrics).toMatch(
        new RegExp(
          `^havn_render_duration_seconds_count\\{[^}]*instance="${instance.name}"[^}]*\\} [1-9]`,
          'm',
        ),
      );
    }
    for (const artifact of made) {
      for (let i = 0; i < 10; i++) {
        const res = await call(lb.base, artifact.url);
        expect(res.status).toBe(200);
        expect((await res.arrayBuffer()).byteLength).toBe(artifact.bytes);
      }
    }
  });

  it('drives a session through the instance that does not own it, and lists it on both', async () => {
    const res = await create(lb.base, { record: true, url: `${fixture.origin}/` });
    expect(res.status).toBe(201);
    const session = (await json(res)) as unknown as Descriptor;
    // The balancer's address in every URL handed out, never an instance's.
    expect(new URL(session.cdpUrl).port).toBe(String(lb.port));
    expect(new URL(session.liveUrl).port).toBe(String(lb.port));
    const owner = ownerOf(session.id);
    const other = instances.find((i) => i !== owner)!;
    const viaOther = (url: string) => url.replace(`:${String(lb.port)}`, `:${String(other.port)}`);

    // Puppeteer, then Playwright, at the cdpUrl itself: the balancer takes one connection to each
    // instance in turn, so one of them lands on the non-owner, whose door forwards byte for byte.
    const pup = await puppeteer.connect({
      browserWSEndpoint: session.cdpUrl,
      defaultViewport: null,
    });
    const [pupPage] = await pup.pages();
    expect(await pupPage!.title()).toBe('Cluster page');
    const pw = await chromium.connectOverCDP(session.cdpUrl);
    const page = pw.contexts()[0]!.pages()[0]!;
    expect(await page.locator('#t').textContent()).toBe('Cluster page');
    await other.waitForLog(/cdp door forwarded/);
    await pup.disconnect();
    // The owner's door still judges every frame: a private address is refused.
    await expect(page.goto('http://10.0.0.5/')).rejects.toThrow(
      /havn: Page\.navigate: host 10\.0\.0\.5/,
    );

    // The whole hardening corpus, sent to the instance that does not own the session.
    const raw = await rawClient(viaOther(session.cdpUrl));
    const pageSession = await attachToPage(raw);
    for (const [method, params, why] of REFUSED_COMMANDS) {
      const reply: CdpMessage = await raw.command(method, params);
      expect(reply.error?.code, method).toBe(-32000);
      expect(reply.error?.message, method).toMatch(/^havn: /);
      expect(reply.error?.message, method).toMatch(why);
    }
    for (const url of REFUSED_URLS) {
      const navigated = await raw.command('Page.navigate', { url }, pageSession);
      expect(navigated.error?.message, url).toMatch(/^havn: /);
      const opened = await raw.command('Target.createTarget', { url });
      expect(opened.error?.message, url).toMatch(/^havn: /);
    }
    // Refused by the door, or by the guard proxy behind the browser: either way nothing arrives.
    for (const spelled of privateSpellings(canary.port)) {
      await raw.command('Page.navigate', { url: `http://${spelled}/` }, pageSession);
    }
    expect(canary.connections()).toBe(0);
    expect((await raw.raw('{"id": 7, "method": ', 7)).error?.code).toBe(-32700);
    raw.close();
    // A client cannot pass for an instance: a forged credential is refused on both paths.
    const forged = { 'x-havn-forwarded-by-peer': 'guess' };
    expect((await call(other.base, `/v1/sessions/${session.id}`, { headers: forged })).status).toBe(
      401,
    );
    const refusal = await new Promise<string>((resolve) => {
      const refused = new WebSocket(viaOther(session.cdpUrl), { headers: forged });
      refused.on('open', () => {
        refused.close();
        resolve('opened');
      });
      // ws reports a refused upgrade as an error (and may report more): keep the first.
      refused.on('error', (err) => {
        resolve(err.message);
      });
    });
    expect(refusal).toBe('Unexpected server response: 401');

    // Screenshot, touch, GET, live view and discovery through the non-owner.
    const shot = await call(other.base, `/v1/sessions/${session.id}/screenshot`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ label: 'via-peer' }),
    });
    expect(shot.status).toBe(200);
    const touched = await call(other.base, `/v1/sessions/${session.id}/touch`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ttlMs: 600_000 }),
    });
    expect(touched.status).toBe(200);
    const got = await json(await call(other.base, `/v1/sessions/${session.id}`));
    expect(got['id']).toBe(session.id);
    expect(got['attached']).toBe(1);
    const live = await fetch(viaOther(session.liveUrl));
    expect(live.status).toBe(200);
    expect(await live.text()).toContain(session.id);
    const version = await json(
      await fetch(
        `${other.base}/v1/sessions/${session.id}/json/version?token=${new URL(session.cdpUrl).searchParams.get('token')!}`,
      ),
    );
    expect(String(version['webSocketDebuggerUrl'])).toContain(
      `:${String(other.port)}/v1/sessions/${session.id}/cdp`,
    );

    // A second session (the owner is full at MAX_SESSIONS=1: it lands on the other instance).
    const second = (await json(await create(lb.base))) as unknown as Descriptor;
    expect(ownerOf(second.id) === owner).toBe(false);
    // The list is the cluster's, the same from both instances.
    const lists = await Promise.all(
      instances.map(async (i) =>
        ((await json(await call(i.base, '/v1/sessions')))['sessions'] as { id: string }[]).map(
          (s) => s.id,
        ),
      ),
    );
    expect(lists[0]!.sort()).toEqual([session.id, second.id].sort());
    expect(lists[1]!.sort()).toEqual(lists[0]);
    // Both full: a third create answers 429 on either instance.
    for (const instance of instances) {
      const third = await create(instance.base);
      expect(third.status).toBe(429);
      expect(third.headers.get('havn-error-code')).toBe('RENDER_CLUSTER_SESSIONS_FULL');
      expect(await json(third)).toEqual({ error: 'MAX_SESSIONS (1) reached on every instance' });
    }

    // DELETE through the non-owner; the recording is then fetched through the owner.
    const closed = await json(
      await call(other.base, `/v1/sessions/${session.id}`, { method: 'DELETE' }),
    );
    const artifacts = closed['artifacts'] as Descriptor['artifacts'];
    const video = artifacts.find((a) => a.contentType === 'video/mp4')!;
    expect(artifacts.some((a) => a.contentType === 'image/png')).toBe(true);
    const mp4 = await call(owner.base, video.url);
    expect(mp4.status).toBe(200);
    expect(
      Buffer.from(await mp4.arrayBuffer())
        .subarray(4, 8)
        .toString(),
    ).toBe('ftyp');
    expect((await call(other.base, `/v1/sessions/${session.id}`)).status).toBe(404);
    await pw.close().catch(() => undefined);
    expect((await call(other.base, `/v1/sessions/${second.id}`, { method: 'DELETE' })).status).toBe(
      200,
    );

    // No instance's address or credential in anything a client saw, nor in a log line.
    // (The non-owner's own address is what the client used there: it may answer with it.)
    const handedOut = JSON.stringify([session, second, got, version, closed, lists]);
    const addresses = instances.map((i) => `127.0.0.1:${String(i.port)}`);
    expect(handedOut).not.toContain(`127.0.0.1:${String(owner.port)}`);
    expect(handedOut).not.toContain(CREDENTIAL);
    for (const instance of instances) {
      const peer = addresses.find((a) => a !== `127.0.0.1:${String(instance.port)}`)!;
      for (const line of instance.logs) {
        expect(line).not.toContain(CREDENTIAL);
        expect(line).not.toContain(peer);
      }
    }
  });

  it('forgets the sessions of an instance killed with SIGKILL within three heartbeats', async () => {
    const res = await create(lb.base);
    expect(res.status).toBe(201);
    const session = (await json(res)) as unknown as Descriptor;
    const owner = ownerOf(session.id);
    const peer = instances.find((i) => i !== owner)!;
    // An owner that accepts connections but never answers (stopped, swapping, partitioned): the
    // peer answers 502 naming the instance, not its address, once its forward times out.
    owner.child.kill('SIGSTOP');
    const stalled = await call(peer.base, `/v1/sessions/${session.id}`);
    expect(stalled.status).toBe(502);
    expect(stalled.headers.get('havn-error-code')).toBe('RENDER_OWNER_UNREACHABLE');
    expect(await json(stalled)).toEqual({
      error: `the instance ${owner.name} that owns session ${session.id} did not answer`,
    });
    await owner.stop('SIGKILL');
    const killedAt = Date.now();
    // At once: the owner refuses connections, so the session is gone.
    expect((await call(peer.base, `/v1/sessions/${session.id}`)).status).toBe(404);
    let listed = true;
    while (listed) {
      const sessions = (await json(await call(peer.base, '/v1/sessions')))['sessions'] as {
        id: string;
      }[];
      listed = sessions.some((s) => s.id === session.id);
      if (listed) await new Promise((r) => setTimeout(r, 50));
    }
    // Three intervals, and one more for a heartbeat that was just being written.
    expect(Date.now() - killedAt).toBeLessThan(4 * HEARTBEAT_MS + 1000);
    const health = await json(await fetch(`${peer.base}/healthz`));
    expect(
      (health['cluster'] as { instances: { name: string }[] }).instances.map((i) => i.name),
    ).toEqual([peer.name]);
    // A new session still opens through the balancer.
    const fresh = await create(lb.base);
    expect(fresh.status).toBe(201);
    const id = ((await json(fresh)) as unknown as Descriptor).id;
    expect((await call(lb.base, `/v1/sessions/${id}`, { method: 'DELETE' })).status).toBe(200);
    // The killed instance comes back on its port, as a new member.
    instances.splice(
      instances.indexOf(owner),
      1,
      await startRenderInstance(`${owner.name}2`, {
        ...shared,
        PORT: String(owner.port),
        BROWSER_UIDS: '64120-64129',
      }),
    );
  });

  it('drains on SIGTERM: its recorded session is closed and its video listed everywhere', async () => {
    const [leaving, staying] = instances as [RenderInstance, RenderInstance];
    const res = await create(leaving.base, { record: true, url: `${fixture.origin}/` });
    const session = (await json(res)) as unknown as Descriptor;
    expect(ownerOf(session.id)).toBe(leaving);
    const stopped = leaving.stop('SIGTERM');
    await leaving.waitForLog(/"msg":"draining"/);
    // A create that reaches the draining instance is placed on its peer.
    const placed = await create(leaving.base);
    expect(placed.status).toBe(201);
    const placedId = ((await json(placed)) as unknown as Descriptor).id;
    expect(ownerOf(placedId)).toBe(staying);
    expect(
      (await call(staying.base, `/v1/sessions/${placedId}`, { method: 'DELETE' })).status,
    ).toBe(200);
    await stopped;
    const health = await json(await fetch(`${staying.base}/healthz`));
    expect(health['cluster']).toMatchObject({ instances: [{ name: staying.name }] });
    const listed = await json(await call(staying.base, `/v1/artifacts?session=${session.id}`));
    const artifacts = listed['artifacts'] as Descriptor['artifacts'];
    expect(artifacts.map((a) => a.contentType)).toContain('video/mp4');
    expect(await leaving.exited).toBe(0);
  });
});
