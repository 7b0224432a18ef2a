import { request } from 'node:http';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium } from 'playwright-core';
import CDP from 'chrome-remote-interface';
import puppeteer from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonApi } from '../../test-support/json-api.js';
import { rawClient } from '../test-support/cdp-client.js';
import {
  SERVICE_TOKEN,
  startSessionTestApp,
  type SessionTestApp,
} from '../test-support/session-test-app.js';

// The CDP door from the outside: refusals at the socket, the frame policy, several clients at
// once, HTTP discovery, and the private-network policy holding for contexts a client creates.

let t: SessionTestApp;
let canary: Server;
let canaryHits = 0;
let canaryPort = 0;
let session: { id: string; cdpUrl: string };

const api: JsonApi = (...args) => t.api(...args);

beforeAll(async () => {
  t = await startSessionTestApp();
  canary = createServer((_req, res) => {
    canaryHits++;
    res.end('canary');
  });
  await new Promise<void>((resolve) => canary.listen(0, '127.0.0.1', resolve));
  canaryPort = (canary.address() as AddressInfo).port;
  const created = await api('POST', '/v1/sessions', { url: t.fixture.url });
  session = created.body as typeof session;
});
afterAll(async () => {
  await t.close();
  canary.closeAllConnections();
  await new Promise<void>((resolve) => {
    canary.close(() => {
      resolve();
    });
  });
  expect(canaryHits).toBe(0);
});

/** Tries a WebSocket upgrade; resolves with the HTTP status and body of a refusal, or 101. */
function upgrade(
  path: string,
  method = 'GET',
  extra: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${t.baseUrl}${path}`, {
      method,
      headers: {
        ...extra,
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
      },
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve({ status: res.statusCode ?? 0, body: '' });
    });
    req.on('response', (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

describe('refusals at the socket', () => {
  it('answers an HTTP status with no JSON and no WebSocket', async () => {
    const token = new URL(session.cdpUrl).searchParams.get('token')!;
    expect(await upgrade(`/v1/sessions/${session.id}/cdpx?token=${token}`)).toEqual({
      status: 404,
      body: '',
    });
    expect(await upgrade(`/v1/nothing?token=${token}`)).toEqual({ status: 404, body: '' });
    expect(await upgrade(`/v1/sessions/${session.id}/cdp`)).toEqual({ status: 401, body: '' });
    expect(await upgrade(`/v1/sessions/${session.id}/cdp?token=wrong`)).toEqual({
      status: 401,
      body: '',
    });
    // A token named twice, or spelled otherwise, is refused rather than guessed at.
    for (const query of [`%74oken=${token}`, `token=${token}&token=${token}`]) {
      expect(await upgrade(`/v1/sessions/${session.id}/cdp?${query}`), query).toEqual({
        status: 401,
        body: '',
      });
    }
    // An unknown session: 404 only for a caller holding the service token.
    expect(await upgrade(`/v1/sessions/nope/cdp?token=${token}`)).toEqual({
      status: 401,
      body: '',
    });
    expect(await upgrade(`/v1/sessions/nope/cdp?token=${SERVICE_TOKEN}`)).toEqual({
      status: 404,
      body: '',
    });
  });

  it('accepts the session token and the service token, by GET or POST, with no Origin or its own', async () => {
    const token = new URL(session.cdpUrl).searchParams.get('token')!;
    expect((await upgrade(`/v1/sessions/${session.id}/cdp?token=${token}`)).status).toBe(101);
    expect(
      (await upgrade(`/v1/sessions/${session.id}/cdp?token=${SERVICE_TOKEN}`, 'POST')).status,
    ).toBe(101);
    const bearer = { authorization: `Bearer ${token}` };
    expect((await upgrade(`/v1/sessions/${session.id}/cdp`, 'GET', bearer)).status).toBe(101);
    // The live view's own page connects with the service's origin.
    const own = { origin: t.baseUrl };
    expect(
      (await upgrade(`/v1/sessions/${session.id}/cdp?token=${token}`, 'GET', own)).status,
    ).toBe(101);
  });

  it("refuses a browser's foreign Origin with 403, whatever the token", async () => {
    const token = new URL(session.cdpUrl).searchParams.get('token')!;
    const port = new URL(t.baseUrl).port;
    for (const origin of [
      'https://evil.example',
      'null',
      `http://localhost:${port}`, // another name for the service is another origin
      `http://127.0.0.1:${Number(port) + 1}`,
    ]) {
      expect(
        await upgrade(`/v1/sessions/${session.id}/cdp?token=${token}`, 'GET', { origin }),
        origin,
      ).toEqual({ status: 403, body: '' });
    }
  });
});

describe('the frame policy', () => {
  it('refuses frames that would step around the proxy or touch the server filesystem', async () => {
    const client = await rawClient(session.cdpUrl);
    try {
      const garbage = await client.raw('{"id": 7, "method": ', 7);
      expect(garbage['error']).toMatchObject({ code: -32700 });
      const refusals: [string, Record<string, unknown>][] = [
        ['Target.createBrowserContext', { proxyServer: 'http://127.0.0.1:1' }],
        ['Target.createBrowserContext', { proxyBypassList: '*' }],
        ['Target.createTarget', { url: 'file:///etc/passwd' }],
        ['Target.createTarget', { url: 'chrome://version' }],
        ['Browser.setDownloadBehavior', { behavior: 'default' }],
        ['Target.exposeDevToolsProtocol', { targetId: 'x' }],
      ];
      for (const [method, params] of refusals) {
        const reply = await client.command(method, params);
        const error = reply['error'] as { code: number; message: string };
        expect(error.code, method).toBe(-32000);
        expect(error.message, method).toMatch(/^havn: /);
      }
      const { targetInfos } = (await client.command('Target.getTargets'))['result'] as {
        targetInfos: { targetId: string; type: string }[];
      };
      const page = targetInfos.find((info) => info.type === 'page')!;
      const attached = await client.command('Target.attachToTarget', {
        targetId: page.targetId,
        flatten: true,
      });
      const sessionId = (attached['result'] as { sessionId: string }).sessionId;
      const navigate = await client.raw(
        JSON.stringify({
          id: 900,
          sessionId,
          method: 'Page.navigate',
          params: { url: 'file:///etc/passwd' },
        }),
        900,
      );
      expect(navigate).toMatchObject({ sessionId, error: { code: -32000 } });
      // Allowed traffic still flows: evaluate in the page.
      const evaluated = await client.raw(
        JSON.stringify({
          id: 901,
          sessionId,
          method: 'Runtime.evaluate',
          params: { expression: '6*7' },
        }),
        901,
      );
      expect(evaluated).toMatchObject({ result: { result: { value: 42 } } });
    } finally {
      client.close();
    }
  });
  it('answers every frame of a burst once, refusals and browser replies alike', async () => {
    // Frames leave the door in batches, and refusals go in between Chromium's frames: none may
    // be lost, held or doubled. A navigation whose host the policy must resolve holds what comes
    // after it, so nothing sent later overtakes it.
    const client = await rawClient(session.cdpUrl);
    try {
      const replies = new Map<number, Record<string, unknown>[]>();
      const order: number[] = [];
      const all = new Promise<void>((resolve) => {
        client.ws.on('message', (data: Buffer) => {
          const reply = JSON.parse(data.toString()) as Record<string, unknown>;
          const id = reply['id'] as number;
          order.push(id);
          replies.set(id, [...(replies.get(id) ?? []), reply]);
          if (replies.size === 200) resolve();
        });
      });
      const kind = (id: number) => (id % 3 === 0 ? 'file' : id % 10 === 1 ? 'private' : 'plain');
      for (let id = 1000; id < 1200; id++) {
        const url = kind(id) === 'file' ? 'file:///etc/passwd' : 'http://127.0.0.1:1/';
        client.ws.send(
          JSON.stringify(
            kind(id) === 'plain'
              ? { id, method: 'Browser.getVersion' }
              : { id, method: 'Target.createTarget', params: { url } },
          ),
        );
      }
      await all;
      for (let id = 1000; id < 1200; id++) {
        expect(replies.get(id), String(id)).toHaveLength(1);
        const reply = replies.get(id)![0]!;
        if (kind(id) === 'plain') expect(reply['result'], String(id)).toHaveProperty('product');
        else expect(reply['error'], String(id)).toMatchObject({ code: -32000 });
        if (kind(id) === 'private') {
          const at = order.indexOf(id);
          expect(
            order.slice(0, at).filter((later) => later > id),
            String(id),
          ).toEqual([]);
        }
      }
    } finally {
      client.close();
    }
  });
});

describe('several clients at once', () => {
  it('counts attached clients and pages', async () => {
    const a = await rawClient(session.cdpUrl);
    const b = await puppeteer.connect({ browserWSEndpoint: session.cdpUrl, defaultViewport: null });
    expect((await api('GET', `/v1/sessions/${session.id}`)).body).toMatchObject({
      attached: 2,
      pages: 1,
    });
    const page = await b.newPage();
    expect((await api('GET', `/v1/sessions/${session.id}`)).body).toMatchObject({ pages: 2 });
    await page.close();
    await b.disconnect();
    a.close();
    await expect
      .poll(async () => (await api('GET', `/v1/sessions/${session.id}`)).body['attached'])
      .toBe(0);
    expect((await api('GET', `/v1/sessions/${session.id}`)).body).toMatchObject({ pages: 1 });
  });
});

describe('HTTP discovery and Playwright', () => {
  it('serves json/version with the door as its socket, with and without the slash', async () => {
    const token = new URL(session.cdpUrl).searchParams.get('token')!;
    for (const path of ['json/version', 'json/version/']) {
      const response = await fetch(`${t.baseUrl}/v1/sessions/${session.id}/${path}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(response.status).toBe(200);
      const body = (await response.json()) as Record<string, string>;
      expect(body['Browser']).toMatch(/Chrome/);
      expect(body['webSocketDebuggerUrl']).toBe(session.cdpUrl);
    }
    expect((await fetch(`${t.baseUrl}/v1/sessions/${session.id}/json/version`)).status).toBe(401);
  });

  it('serves json/version, json/list and json at the session path and, by session token, at the root', async () => {
    const token = new URL(session.cdpUrl).searchParams.get('token')!;
    const own = { authorization: `Bearer ${token}` };
    const get = async (path: string, headers: Record<string, string> = own) => {
      const response = await fetch(`${t.baseUrl}${path}`, { headers });
      return { status: response.status, body: await response.json() };
    };
    for (const prefix of [`/v1/sessions/${session.id}`, '']) {
      expect((await get(`${prefix}/json/version`)).body).toMatchObject({
        webSocketDebuggerUrl: session.cdpUrl,
      });
      for (const path of ['/json/list', '/json']) {
        const { body } = await get(`${prefix}${path}`);
        const pages = body as {
          id: string;
          type: string;
          url: string;
          webSocketDebuggerUrl: string;
        }[];
        expect(pages.length, path).toBeGreaterThan(0);
        for (const page of pages) {
          expect(page.type).toBe('page');
          expect(page.webSocketDebuggerUrl).toBe(
            `${t.baseUrl.replace(/^http/, 'ws')}/v1/sessions/${session.id}/cdp/page/${page.id}?token=${token}`,
          );
          expect(page).not.toHaveProperty('devtoolsFrontendUrl');
        }
      }
    }
    expect((await get('/json/version', {})).status).toBe(401);
    expect((await get('/json/list', {})).status).toBe(401);
    expect((await get('/json/version', { authorization: 'Bearer nope' })).status).toBe(401);
    expect(await get('/json/version', { authorization: `Bearer ${SERVICE_TOKEN}` })).toMatchObject({
      status: 400,
      body: { error: expect.stringMatching(/needs a session token/) as unknown },
    });
  });

  it('lets Playwright find the session from the service root and chrome-remote-interface drive a page', async () => {
    const token = new URL(session.cdpUrl).searchParams.get('token')!;
    const browser = await chromium.connectOverCDP(t.baseUrl, {
      headers: { authorization: `Bearer ${token}` },
    });
    try {
      expect(await browser.contexts()[0]!.pages()[0]!.title()).toBe('fixture');
    } finally {
      await browser.close();
    }
    const { port } = new URL(t.baseUrl);
    const client = await CDP({
      host: '127.0.0.1',
      port: Number(port),
      // CRI runs alterPath over the HTTP paths and the socket's path: only the first need it.
      alterPath: (path: string) =>
        path.startsWith('/json') ? `/v1/sessions/${session.id}${path}?token=${token}` : path,
    });
    try {
      const { result } = await client.Runtime.evaluate({ expression: 'document.title' });
      expect(result.value).toBe('fixture');
      // A page socket is judged like the browser's.
      await expect(client.Page.navigate({ url: 'file:///etc/passwd' })).rejects.toThrow(
        /only http\(s\) URLs/,
      );
    } finally {
      await client.close();
    }
  });

  it('lets Playwright connectOverCDP list pages, open a context and a page, navigate and evaluate', async () => {
    const token = new URL(session.cdpUrl).searchParams.get('token')!;
    const browser = await chromium.connectOverCDP(`${t.baseUrl}/v1/sessions/${session.id}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    try {
      expect(
        browser
          .contexts()[0]!
          .pages()
          .map((p) => p.url()),
      ).toEqual([`${t.fixture.url}/`]);
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(`${t.fixture.url}/`);
      expect(await page.evaluate('document.querySelector("#hello").textContent')).toBe(
        'hello from the fixture',
      );
      // A context the client created is still behind the policy: the navigation fails, naming it.
      await expect(page.goto(`http://127.0.0.1:${canaryPort}/`)).rejects.toThrow(
        /havn: Page\.navigate: host 127\.0\.0\.1 .*loopback.*\(private-network policy\)/,
      );
      // A redirect into private space is refused by the proxy itself, hop by hop.
      const hop = `http://127.0.0.1:${canaryPort}/`;
      const redirected = await page.goto(`${t.fixture.url}/redirect?to=${encodeURIComponent(hop)}`);
      expect(redirected?.status()).toBe(403);
      await context.close();
    } finally {
      await browser.close();
    }
  });

  it('lets Playwright connect to cdpUrl itself', async () => {
    const browser = await chromium.connectOverCDP(session.cdpUrl);
    try {
      const [page] = browser.contexts()[0]!.pages();
      expect(await page!.title()).toBe('fixture');
    } finally {
      await browser.close();
    }
  });

  it('keeps a puppeteer-created context behind the proxy and refuses its own proxy', async () => {
    const browser = await puppeteer.connect({
      browserWSEndpoint: session.cdpUrl,
      defaultViewport: null,
    });
    try {
      await expect(
        browser.createBrowserContext({ proxyServer: `http://127.0.0.1:${canaryPort}` }),
      ).rejects.toThrow(/proxyServer is not allowed/);
      const context = await browser.createBrowserContext();
      const page = await context.newPage();
      // Pages of every context count.
      expect((await api('GET', `/v1/sessions/${session.id}`)).body).toMatchObject({ pages: 2 });
      for (const host of [
        `127.0.0.1:${canaryPort}`,
        `[::ffff:7f00:1]:${canaryPort}`,
        `2130706433:${canaryPort}`,
      ]) {
        await expect(page.goto(`http://${host}/`), host).rejects.toThrow(/private-network policy/);
      }
      await expect(page.goto('file:///etc/passwd')).rejects.toThrow(/only http\(s\) URLs/);
      await context.close();
    } finally {
      await browser.disconnect();
    }
    expect(t.refusals.length).toBeGreaterThan(0);
  });
});
