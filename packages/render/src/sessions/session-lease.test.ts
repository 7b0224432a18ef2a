import { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonApi } from '../test-support/json-api.js';
import { startSessionTestApp, type SessionTestApp } from './test-support/session-test-app.js';

// Leases (docs/sessions.md#leases): clamps, the reaper, CDP activity keeping a session alive,
// MAX_SESSIONS, and the request checks in front of all of it.

let t: SessionTestApp;

beforeAll(async () => {
  t = await startSessionTestApp({
    maxSessions: 2,
    ttlMs: 60_000,
    maxTtlMs: 90_000,
    reaperIntervalMs: 100,
  });
});
afterAll(async () => {
  await t.close();
});

const api: JsonApi = (...args) => t.api(...args);

function leaseMs(descriptor: Record<string, unknown>): number {
  return Date.parse(descriptor['expiresAt'] as string) - Date.now();
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('leases', () => {
  it('clamps ttlMs at creation and touch, and touch without ttlMs reuses the session ttl', async () => {
    const created = await api('POST', '/v1/sessions', { ttlMs: 10_000_000 });
    expect(created.status).toBe(201);
    const id = created.body['id'] as string;
    const span =
      Date.parse(created.body['expiresAt'] as string) -
      Date.parse(created.body['createdAt'] as string);
    expect(span).toBe(90_000);
    const touched = await api('POST', `/v1/sessions/${id}/touch`, { ttlMs: 5000 });
    expect(touched.status).toBe(200);
    expect(leaseMs(touched.body)).toBeGreaterThan(3000);
    expect(leaseMs(touched.body)).toBeLessThanOrEqual(5000);
    const clamped = await api('POST', `/v1/sessions/${id}/touch`, { ttlMs: 10_000_000 });
    expect(leaseMs(clamped.body)).toBeGreaterThan(85_000);
    expect(leaseMs(clamped.body)).toBeLessThanOrEqual(90_000);
    const again = await api('POST', `/v1/sessions/${id}/touch`, {});
    expect(leaseMs(again.body)).toBeGreaterThan(85_000);
    // GET does not refresh the lease.
    const got = await api('GET', `/v1/sessions/${id}`);
    expect(got.body['expiresAt']).toBe(again.body['expiresAt']);
    expect((await api('DELETE', `/v1/sessions/${id}`)).status).toBe(200);
  });

  it('reaps an idle session as DELETE does, while CDP activity keeps another alive', async () => {
    const idle = (await api('POST', '/v1/sessions', { ttlMs: 2500 })).body;
    const busy = (await api('POST', '/v1/sessions', { ttlMs: 2500 })).body;
    const ws = new WebSocket(busy['cdpUrl'] as string);
    await new Promise((resolve) => ws.once('open', resolve));
    const closed = new Promise<number>((resolve) => {
      ws.once('close', (code) => {
        resolve(code);
      });
    });
    for (let i = 1; i <= 10; i++) {
      ws.send(JSON.stringify({ id: i, method: 'Browser.getVersion' }));
      await sleep(400);
    }
    expect((await api('GET', `/v1/sessions/${idle['id'] as string}`)).status).toBe(404);
    expect((await api('GET', `/v1/sessions/${busy['id'] as string}`)).status).toBe(200);
    // Quiet now: the lease runs out, the session is reaped and its client disconnected.
    expect(await closed).toBe(1001);
    expect((await api('GET', `/v1/sessions/${busy['id'] as string}`)).status).toBe(404);
    expect(t.manager.liveCount()).toBe(0);
  });

  it('answers 429 past MAX_SESSIONS and frees the slot on DELETE', async () => {
    const a = await api('POST', '/v1/sessions', {});
    const b = await api('POST', '/v1/sessions', {});
    expect([a.status, b.status]).toEqual([201, 201]);
    const c = await api('POST', '/v1/sessions', {});
    expect(c).toEqual({
      status: 429,
      code: 'RENDER_SESSIONS_FULL',
      body: { error: 'MAX_SESSIONS (2) reached' },
    });
    expect((await api('GET', '/v1/sessions')).body['sessions']).toHaveLength(2);
    await api('DELETE', `/v1/sessions/${a.body['id'] as string}`);
    const d = await api('POST', '/v1/sessions', {});
    expect(d.status).toBe(201);
    await api('DELETE', `/v1/sessions/${b.body['id'] as string}`);
    await api('DELETE', `/v1/sessions/${d.body['id'] as string}`);
  });
});

describe('a session whose client closed every page', () => {
  it('answers 400 to a screenshot and counts no pages', async () => {
    const created = await api('POST', '/v1/sessions', {});
    const id = created.body['id'] as string;
    const ws = new WebSocket(created.body['cdpUrl'] as string);
    await new Promise((resolve) => ws.once('open', resolve));
    const reply = (want: number) =>
      new Promise<Record<string, unknown>>((resolve) => {
        ws.on('message', (data: Buffer) => {
          const msg = JSON.parse(data.toString()) as Record<string, unknown>;
          if (msg['id'] === want) resolve(msg);
        });
      });
    ws.send(JSON.stringify({ id: 1, method: 'Target.getTargets' }));
    const { targetInfos } = (await reply(1))['result'] as {
      targetInfos: { targetId: string; type: string }[];
    };
    const page = targetInfos.find((info) => info.type === 'page')!;
    ws.send(
      JSON.stringify({ id: 2, method: 'Target.closeTarget', params: { targetId: page.targetId } }),
    );
    await reply(2);
    await expect.poll(async () => (await api('GET', `/v1/sessions/${id}`)).body['pages']).toBe(0);
    const shot = await api('POST', `/v1/sessions/${id}/screenshot`, {});
    expect(shot).toEqual({
      status: 400,
      code: 'RENDER_SESSION_NO_PAGE',
      body: { error: 'the session has no open page to capture' },
    });
    ws.close();
    expect((await api('DELETE', `/v1/sessions/${id}`)).status).toBe(200);
  });
});

describe('request checks', () => {
  it('answers 401 without the service token, and a session token opens no API route', async () => {
    expect((await api('GET', '/v1/sessions', undefined, {})).status).toBe(401);
    expect(
      (await api('GET', '/v1/sessions', undefined, { authorization: 'Bearer nope' })).body,
    ).toEqual({
      error: 'missing or invalid token',
    });
    const created = await api('POST', '/v1/sessions', {});
    const token = new URL(created.body['cdpUrl'] as string).searchParams.get('token')!;
    const id = created.body['id'] as string;
    expect(
      (await api('DELETE', `/v1/sessions/${id}`, undefined, { authorization: `Bearer ${token}` }))
        .status,
    ).toBe(401);
    await api('DELETE', `/v1/sessions/${id}`);
    // Dead with its session.
    expect(
      (
        await api('GET', `/v1/sessions/${id}/json/version`, undefined, {
          authorization: `Bearer ${token}`,
        })
      ).status,
    ).toBe(401);
  });

  it('answers 400 naming the field and leaves no session behind', async () => {
    const cases: [unknown, RegExp][] = [
      [{ ttlMs: 10 }, /ttlMs/],
      [{ record: { fps: 60 } }, /^record\.fps must be <= 30$/],
      [{ record: { fsp: 5 } }, /^record\.fsp is not a known field$/],
      [{ record: 'yes' }, /^record must be boolean or object$/],
      [{ profile: 'nope' }, /^profile: /],
      [{ url: 'file:///etc/passwd' }, /^url must use http or https/],
      [
        { url: 'http://127.0.0.1:9/' },
        /^url: host 127\.0\.0\.1 resolves to 127\.0\.0\.1, which is in the refused range loopback/,
      ],
      [{ url: 'http://2130706433/' }, /refused range loopback/],
      [{ labels: { a: { b: 1 } } }, /labels/],
      [{ cookies: [{ name: 'a', value: 'b' }] }, /^cookies: /],
    ];
    for (const [body, message] of cases) {
      const response = await api('POST', '/v1/sessions', body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body['error']).toMatch(message);
    }
    expect(t.manager.liveCount()).toBe(0);
  });

  it('takes no body at all as {}, with or without a JSON content type', async () => {
    for (const headers of [t.auth, { ...t.auth, 'content-type': 'application/json' }]) {
      const response = await fetch(`${t.baseUrl}/v1/sessions`, { method: 'POST', headers });
      expect(response.status, JSON.stringify(headers)).toBe(201);
      const { id } = (await response.json()) as { id: string };
      expect((await api('DELETE', `/v1/sessions/${id}`)).status).toBe(200);
    }
  });

  it('answers 404 for an unknown session on every route', async () => {
    for (const [method, path] of [
      ['GET', '/v1/sessions/nope'],
      ['DELETE', '/v1/sessions/nope'],
      ['POST', '/v1/sessions/nope/touch'],
      ['POST', '/v1/sessions/nope/screenshot'],
    ] as const) {
      const response = await api(method, path, method === 'POST' ? {} : undefined);
      expect(response, `${method} ${path}`).toEqual({
        status: 404,
        code: 'RENDER_SESSION_NOT_FOUND',
        body: { error: 'no session nope' },
      });
    }
  });
});
