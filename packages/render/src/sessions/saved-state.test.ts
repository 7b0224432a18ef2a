import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../test-support/fixture-server.js';
import { startService, type TestService } from '../test-support/service.js';
import { sessionsExtension } from './sessions-extension.js';

// docs/sessions.md#log-in-once-render-many-times, as a user meets it: log in once in a session,
// save its state, and start a render and a new session from it, logged in. The state is sealed
// at rest: another key, or one changed byte, is refused by name and never half-applied; its
// cookies never reach a log; and a session's own token saves its own state and nothing more.

const KEY = randomBytes(32).toString('base64');
/** The session cookie the site sets: a secret, so it must never be seen in a log line. */
const SID = `sid-${randomBytes(12).toString('hex')}`;
const TOKEN = `tok-${randomBytes(12).toString('hex')}`;
const CHIPS = `chips-${randomBytes(12).toString('hex')}`;

/**
 * A site with a login: the form sets an httpOnly cookie, and the page it answers stores a token
 * in localStorage and a profile record in IndexedDB. The dashboard is green, and names the user,
 * only when all three are there.
 */
function loginSite(): Promise<FixtureServer> {
  const page = (body: string) => (_req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html><head><title>crm</title></head><body>${body}</body></html>`);
  };
  const form = page(
    '<form method="post" action="/login"><input name="user" id="user"><button id="go">Log in</button></form>',
  );
  const idb = `const open = () => new Promise((ok, no) => { const r = indexedDB.open('crm', 1);
    r.onupgradeneeded = () => r.result.createObjectStore('profile', { keyPath: 'id' });
    r.onsuccess = () => ok(r.result); r.onerror = () => no(r.error); });`;
  const dashboard = page(`<h1 id="who">Ada Lovelace</h1><p id="checks"></p><script>${idb}
    const token = localStorage.getItem('token');
    open().then((db) => new Promise((ok) => {
      const get = db.transaction('profile').objectStore('profile').get(1);
      get.onsuccess = () => ok(get.result); get.onerror = () => ok(undefined); }))
    .then((record) => {
      const all = token === '${TOKEN}' && record && record.name === 'Ada Lovelace';
      document.getElementById('checks').textContent = JSON.stringify({ token, record });
      document.body.style.background = all ? 'rgb(0, 160, 0)' : 'rgb(200, 0, 0)';
      document.title = 'checked';
    });</script>`);
  const loggedOut = page(
    '<h1 id="who">Please log in</h1><script>document.body.style.background = "rgb(200, 0, 0)"; document.title = "checked";</script>',
  );
  return startFixtureServer({
    '/login': (req, res) => {
      if (req.method !== 'POST') {
        form(req, res);
        return;
      }
      res.writeHead(303, {
        location: '/welcome',
        'set-cookie': `sid=${SID}; HttpOnly; Path=/; SameSite=Lax`,
      });
      res.end();
    },
    '/welcome': page(`<p id="state">storing</p><script>${idb}
      localStorage.setItem('token', '${TOKEN}');
      open().then((db) => { const tx = db.transaction('profile', 'readwrite');
        tx.objectStore('profile').put({ id: 1, name: 'Ada Lovelace' });
        tx.oncomplete = () => { document.getElementById('state').textContent = 'stored'; }; });
    </script>`),
    // A third party's partitioned cookie (CHIPS): 127.0.0.1 in a frame of the localhost page.
    '/embed': (req, res) => {
      const port = (req.headers.host ?? '').split(':')[1] ?? '';
      page(`<iframe id="chips" src="http://127.0.0.1:${port}/chips"></iframe>`)(req, res);
    },
    '/chips': (req, res) => {
      res.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'set-cookie': `cp=${CHIPS}; Secure; SameSite=None; Partitioned; Path=/`,
      });
      res.end('<!doctype html><p>widget</p>');
    },
    '/dashboard': (req, res) => {
      if ((req.headers.cookie ?? '').includes(`sid=${SID}`)) dashboard(req, res);
      else loggedOut(req, res);
    },
  });
}

describe('saved browser state', () => {
  let site: FixtureServer;
  let svc: TestService;
  let dir: string;
  const env = () => ({
    // 127.0.0.1 is the third party whose frame sets a partitioned cookie.
    ALLOWED_HOSTS: 'localhost,127.0.0.1',
    ARTIFACT_DIR: join(dir, 'artifacts'),
    STATE_KEY: KEY,
    MAX_STATE_BYTES: '200000',
  });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'havn-state-test-'));
    site = await loginSite();
    svc = await startService(env(), { extensions: [sessionsExtension()] });
  }, 60_000);

  afterAll(async () => {
    await svc.close();
    await site.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function openSession(body: Record<string, unknown>) {
    const opened = await svc.post('/v1/sessions', body);
    expect(opened.status, JSON.stringify(opened.body)).toBe(201);
    const cdpUrl = String(opened.body['cdpUrl']);
    return {
      id: String(opened.body['id']),
      cdpUrl,
      token: new URL(cdpUrl).searchParams.get('token') ?? '',
    };
  }

  /** The session's first page, driven by Playwright over the door. */
  async function drive(cdpUrl: string): Promise<{ browser: Browser; page: Page }> {
    const browser = await chromium.connectOverCDP(cdpUrl);
    const [context] = browser.contexts();
    const page = context!.pages()[0] ?? (await context!.newPage());
    return { browser, page };
  }

  const asSession = (token: string, method: string, path: string, body?: unknown) =>
    svc.call(path, {
      method,
      auth: false,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body !== undefined && { 'content-type': 'application/json' }),
      },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });

  /** The colour of the PNG's top-left pixel, read by a page's own canvas. */
  async function cornerColour(page: Page, png: Buffer): Promise<string> {
    const src = `data:image/png;base64,${png.toString('base64')}`;
    return page.evaluate<string>(`(async () => {
      const img = new Image();
      img.src = ${JSON.stringify(src)};
      await img.decode();
      const canvas = document.createElement('canvas');
      canvas.width = img.width;
      canvas.height = img.height;
      const ctx = canvas.getContext('2d');
      ctx.drawImage(img, 0, 0);
      return [...ctx.getImageData(2, 2, 1, 1).data.slice(0, 3)].join(',');
    })()`);
  }

  it('logs in once, then renders and opens a session logged in', async () => {
    // Session A: log in through the form, as a person would.
    const a = await openSession({ url: `${site.origin}/login` });
    const driven = await drive(a.cdpUrl);
    await driven.page.fill('#user', 'ada');
    await driven.page.click('#go');
    await driven.page.waitForFunction(`document.getElementById('state')?.textContent === 'stored'`);
    // Saved with the session's own token, labels kept.
    const saved = await asSession(a.token, 'POST', `/v1/sessions/${a.id}/state`, {
      name: 'crm-login',
      labels: { app: 'crm' },
    });
    expect(saved.status).toBe(201);
    expect(await saved.json()).toMatchObject({
      name: 'crm-login',
      origins: [site.origin],
      cookies: 1,
      labels: { app: 'crm' },
      bytes: expect.any(Number) as unknown,
      createdAt: expect.stringMatching(/Z$/) as unknown,
    });
    expect((await svc.call(`/v1/sessions/${a.id}`, { method: 'DELETE' })).status).toBe(200);
    await driven.browser.close();

    // A render of the dashboard in one call: green (cookie, localStorage and IndexedDB all there).
    const withState = await svc.post('/v1/render', {
      url: `${site.origin}/dashboard`,
      state: 'crm-login',
      waitForSelector: '#checks:not(:empty)',
      return: 'base64',
    });
    expect(withState.status, JSON.stringify(withState.body)).toBe(200);
    const without = await svc.post('/v1/render', {
      url: `${site.origin}/dashboard`,
      return: 'base64',
    });
    expect(without.status).toBe(200);

    // Session B starts from the state and reads all three from inside the page.
    const b = await openSession({ url: `${site.origin}/dashboard`, state: 'crm-login' });
    const inB = await drive(b.cdpUrl);
    try {
      await inB.page.waitForFunction(`document.title === 'checked'`);
      expect(await inB.page.textContent('#who')).toBe('Ada Lovelace');
      expect(JSON.parse((await inB.page.textContent('#checks')) ?? '{}')).toEqual({
        token: TOKEN,
        record: { id: 1, name: 'Ada Lovelace' },
      });
      // The httpOnly cookie is there, though no script can see it.
      expect(await inB.page.evaluate<string>('document.cookie')).not.toContain(SID);
      const png = (r: { body: Record<string, unknown> }) =>
        Buffer.from(String(r.body['base64']), 'base64');
      expect(await cornerColour(inB.page, png(withState))).toBe('0,160,0');
      expect(await cornerColour(inB.page, png(without))).toBe('200,0,0');
    } finally {
      await inB.browser.close();
      await svc.call(`/v1/sessions/${b.id}`, { method: 'DELETE' });
    }

    // Listed with the service token; the cookie's value was never written to a log line.
    const listed = await svc.call('/v1/states');
    expect(await listed.json()).toMatchObject({ states: [{ name: 'crm-login', cookies: 1 }] });
    const logs = svc.logs.join('');
    expect(logs).toContain('state saved');
    expect(logs).not.toContain(SID);
    expect(logs).not.toContain(TOKEN);
  }, 120_000);

  it('applies a state without a request to its site, and leaves no page to go back to', async () => {
    const before = new Map(site.hits);
    const c = await openSession({ state: 'crm-login' });
    const inC = await drive(c.cdpUrl);
    try {
      // The service answered the origin's document itself: the site saw nothing.
      expect(site.hits).toEqual(before);
      // The client finds the page as a session without a state starts: blank, no history.
      expect(inC.page.url()).toBe('about:blank');
      expect(await inC.page.evaluate<number>('history.length')).toBe(1);
      expect(await inC.page.goBack()).toBeNull();
      // And the state is there when the client goes to the site.
      await inC.page.goto(`${site.origin}/dashboard`);
      await inC.page.waitForFunction(`document.title === 'checked'`);
      expect(JSON.parse((await inC.page.textContent('#checks')) ?? '{}')).toMatchObject({
        token: TOKEN,
      });
    } finally {
      await inC.browser.close();
      await svc.call(`/v1/sessions/${c.id}`, { method: 'DELETE' });
    }
  }, 120_000);

  it('starts from a state every time, fifty starts in a row', async () => {
    // The page's way back to about:blank races Chromium's own switch to the new document (about
    // one start in fifty lost it, and the session answered an error): every start must open.
    const answers: number[] = [];
    for (let i = 0; i < 50; i++) {
      const opened = await svc.post('/v1/sessions', { state: 'crm-login' });
      answers.push(opened.status);
      if (opened.status === 201) {
        await svc.call(`/v1/sessions/${String(opened.body['id'])}`, { method: 'DELETE' });
      }
    }
    expect(answers.filter((status) => status !== 201)).toEqual([]);
  }, 180_000);

  it('keeps a partitioned cookie, in its partition only', async () => {
    const a = await openSession({ url: `${site.origin}/embed` });
    const saved = await svc.post(`/v1/sessions/${a.id}/state`, { name: 'chips' });
    expect(saved.body).toMatchObject({ cookies: 1 });
    await svc.call(`/v1/sessions/${a.id}`, { method: 'DELETE' });

    const b = await openSession({ state: 'chips' });
    const inB = await drive(b.cdpUrl);
    try {
      // The frame under the localhost page reads it; a page of 127.0.0.1's own does not.
      await inB.page.goto(`${site.origin}/embed`);
      const frame = await (await inB.page.waitForSelector('#chips')).contentFrame();
      expect(await frame!.evaluate<string>('document.cookie')).toBe(`cp=${CHIPS}`);
      await inB.page.goto(frame!.url().replace('/chips', '/login'));
      expect(await inB.page.evaluate<string>('document.cookie')).toBe('');
    } finally {
      await inB.browser.close();
      await svc.call(`/v1/sessions/${b.id}`, { method: 'DELETE' });
      await svc.call('/v1/states/chips', { method: 'DELETE' });
    }
  }, 60_000);

  it('saves as a session closes, and refuses bad names, unknown states and oversized ones', async () => {
    const s = await openSession({ url: `${site.origin}/login` });
    const bad = await svc.call(`/v1/sessions/${s.id}?saveState=Not%20A%20Name`, {
      method: 'DELETE',
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({
      error: expect.stringMatching(/^saveState must match \^\[a-z0-9\]/) as unknown,
    });
    const closed = await svc.call(`/v1/sessions/${s.id}?saveState=on-close`, { method: 'DELETE' });
    expect(closed.status).toBe(200);
    expect((await svc.call(`/v1/sessions/${s.id}`)).status).toBe(404);
    const names = (
      (await (await svc.call('/v1/states')).json()) as { states: { name: string }[] }
    ).states.map((x) => x.name);
    expect(names).toContain('on-close');

    const unknown = await svc.post('/v1/sessions', { state: 'no-such-state' });
    const notFound = {
      status: 404,
      code: 'RENDER_STATE_NOT_FOUND',
      body: { error: 'state no-such-state does not exist' },
    };
    expect(unknown).toEqual(notFound);
    const render = await svc.post('/v1/render', { html: '<p>x</p>', state: 'no-such-state' });
    expect(render).toEqual(notFound);
    const badName = await svc.post('/v1/render/batch', {
      html: '<p>x</p>',
      profiles: ['desktop'],
      state: '../etc',
    });
    expect(badName.status).toBe(400);
    expect(String(badName.body['error'])).toMatch(/^state must match/);

    // Over MAX_STATE_BYTES (200000 here): 413, and nothing stored.
    const big = await openSession({ url: `${site.origin}/login` });
    const driven = await drive(big.cdpUrl);
    await driven.page.evaluate(`localStorage.setItem('blob', 'x'.repeat(300000))`);
    const over = await svc.post(`/v1/sessions/${big.id}/state`, { name: 'too-big' });
    expect(over.status).toBe(413);
    expect(String(over.body['error'])).toMatch(
      /^state too-big is \d+ bytes, over MAX_STATE_BYTES \(200000\)$/,
    );
    await svc.call(`/v1/sessions/${big.id}`, { method: 'DELETE' });
    await driven.browser.close();
    expect((await svc.call('/v1/states/too-big', { method: 'DELETE' })).status).toBe(404);
    const deleted = await svc.call('/v1/states/on-close', { method: 'DELETE' });
    expect(await deleted.json()).toEqual({ name: 'on-close', deleted: true });
  }, 120_000);

  it('lets a session token save its own state only, and neither list, load nor delete one', async () => {
    const mine = await openSession({});
    const other = await openSession({});
    try {
      const saveOther = await asSession(mine.token, 'POST', `/v1/sessions/${other.id}/state`, {
        name: 'stolen',
      });
      expect(saveOther.status).toBe(401);
      for (const [method, path, body] of [
        ['GET', '/v1/states', undefined],
        ['DELETE', '/v1/states/crm-login', undefined],
        ['POST', '/v1/sessions', { state: 'crm-login' }],
        ['POST', '/v1/render', { html: '<p>x</p>', state: 'crm-login' }],
        [
          'POST',
          '/v1/render/batch',
          { html: '<p>x</p>', profiles: ['desktop'], state: 'crm-login' },
        ],
      ] as const) {
        const res = await asSession(mine.token, method, path, body);
        expect(res.status, `${method} ${path}`).toBe(401);
      }
    } finally {
      await svc.call(`/v1/sessions/${mine.id}`, { method: 'DELETE' });
      await svc.call(`/v1/sessions/${other.id}`, { method: 'DELETE' });
    }
  }, 60_000);

  it('refuses a changed byte, and every state after a restart with another STATE_KEY', async () => {
    const file = join(dir, 'artifacts', 'states', 'crm-login.state');
    const sealed = await readFile(file);
    const flipped = Buffer.from(sealed);
    flipped[flipped.length - 10]! ^= 0x01;
    await writeFile(file, flipped);
    const refused = {
      status: 409,
      code: 'RENDER_STATE_UNREADABLE',
      body: {
        error:
          'state crm-login cannot be read with this STATE_KEY (it was saved under another key, or its stored bytes were changed); save it again',
      },
    };
    expect(await svc.post('/v1/sessions', { state: 'crm-login' })).toEqual(refused);
    expect(await svc.post('/v1/render', { html: '<p>x</p>', state: 'crm-login' })).toEqual(refused);
    expect(svc.logs.join('')).toContain('a saved state could not be read');
    await writeFile(file, sealed);

    // Restarted with another key over the same store: listed, but unusable, by name.
    await svc.close();
    svc = await startService(
      { ...env(), STATE_KEY: randomBytes(32).toString('base64') },
      { extensions: [sessionsExtension()] },
    );
    expect(await (await svc.call('/v1/states')).json()).toMatchObject({
      states: [{ name: 'crm-login' }],
    });
    expect(await svc.post('/v1/render', { html: '<p>x</p>', state: 'crm-login' })).toEqual(refused);

    // Without a key at all, saving says how to set one.
    await svc.close();
    const { STATE_KEY: _key, ...keyless } = env();
    svc = await startService(keyless, { extensions: [sessionsExtension()] });
    const s = await openSession({});
    const save = await svc.post(`/v1/sessions/${s.id}/state`, { name: 'anything' });
    expect(save.status).toBe(409);
    expect(String(save.body['error'])).toContain('set STATE_KEY to 32 random bytes in base64');
    await svc.call(`/v1/sessions/${s.id}`, { method: 'DELETE' });
  }, 120_000);
});
