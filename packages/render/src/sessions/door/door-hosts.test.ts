import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSessionTestApp, type SessionTestApp } from '../test-support/session-test-app.js';

// docs/render.md#hosts-and-origins at the sessions' end: the Host a client sent goes into
// `cdpUrl`, `liveUrl` and discovery only when trusted, and in anonymous mode the door refuses a
// rebound name's upgrade as the routes refuse its requests.

let t: SessionTestApp;
let session: { id: string; cdpUrl: string };

beforeAll(async () => {
  t = await startSessionTestApp({
    publicHosts: { baseUrl: undefined, allowed: ['render.test'], refuseUntrusted: true },
  });
  session = await t.openSession();
});
afterAll(async () => {
  await t.close();
});

/** A request to the service with a Host of the caller's choosing; status and body. */
function call(
  path: string,
  host: string,
  extra: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${t.baseUrl}${path}`, { headers: { ...t.auth, ...extra, host } });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve({ status: res.statusCode ?? 0, body: '' });
    });
    req.on('response', (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

const UPGRADE = {
  connection: 'Upgrade',
  upgrade: 'websocket',
  'sec-websocket-version': '13',
  'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
};

describe('the Host in the URLs a session hands out', () => {
  it('is the trusted Host the client used, never one it made up', async () => {
    const port = new URL(t.baseUrl).port;
    const urls = async (host: string) => {
      const { body } = await call(`/v1/sessions/${session.id}/json/version`, host);
      return (JSON.parse(body) as { webSocketDebuggerUrl: string }).webSocketDebuggerUrl;
    };
    expect(await urls('render.test')).toMatch(/^ws:\/\/render\.test\/v1\/sessions\//);
    expect(await urls(`localhost:${port}`)).toMatch(new RegExp(`^ws://localhost:${port}/`));
    expect(await urls('evil.test')).toMatch(new RegExp(`^ws://127\\.0\\.0\\.1:${port}/`));
  });
});

describe('the door in anonymous mode', () => {
  it('refuses a rebound Host with 403 and takes a loopback or configured one', async () => {
    const path = `/v1/sessions/${session.id}/cdp`;
    expect(await call(path, 'rebind.test', UPGRADE)).toEqual({ status: 403, body: '' });
    expect((await call(path, 'render.test', UPGRADE)).status).toBe(101);
    expect((await call(path, new URL(t.baseUrl).host, UPGRADE)).status).toBe(101);
  });
});
