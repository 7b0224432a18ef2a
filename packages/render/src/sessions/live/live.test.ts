import { request } from 'node:http';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attachToPage, rawClient } from '../test-support/cdp-client.js';
import { startSessionTestApp, type SessionTestApp } from '../test-support/session-test-app.js';

// The live view in a real browser: a person watches the session's tab and clicks a button in it,
// while a CDP client is attached; the read-only view shows the tab but clicks do nothing.

let t: SessionTestApp;
let viewer: Browser;

beforeAll(async () => {
  t = await startSessionTestApp();
  viewer = await chromium.launch({
    executablePath: '/usr/bin/chromium-headless-shell',
    args: ['--no-sandbox'],
  });
});
afterAll(async () => {
  await viewer.close();
  await t.close();
});

describe('the live view', () => {
  it('shows the active tab and takes a click, beside an attached client, or only shows it', async () => {
    const created = await t.api('POST', '/v1/sessions', { url: `${t.fixture.url}/button` });
    const { id, cdpUrl, liveUrl } = created.body as { id: string; cdpUrl: string; liveUrl: string };
    expect(liveUrl).toMatch(new RegExp(`^${t.baseUrl}/v1/sessions/${id}/live\\?token=`));
    const client = await rawClient(cdpUrl);
    const pageSession = await attachToPage(client);
    const label = async () =>
      (
        await client.command(
          'Runtime.evaluate',
          { expression: "document.getElementById('b').textContent" },
          pageSession,
        )
      ).result?.['result'] as { value?: string } | undefined;
    try {
      const readOnly = await viewer.newPage();
      await readOnly.goto(`${liveUrl}&interactive=0`);
      await expect.poll(() => readOnly.textContent('#state'), { timeout: 10_000 }).toBe('live');
      await readOnly.click('#screen', { position: { x: 100, y: 100 } });
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect((await label())?.value).toBe('click me');

      const live = await viewer.newPage();
      await live.goto(liveUrl);
      await expect.poll(() => live.textContent('#state'), { timeout: 10_000 }).toBe('live');
      // The frame is the session's 800×600 viewport, shown at its own size.
      expect(await live.evaluate("document.getElementById('screen').naturalWidth")).toBe(800);
      await live.click('#screen', { position: { x: 100, y: 100 } });
      await expect.poll(async () => (await label())?.value).toBe('clicked');
    } finally {
      client.close();
    }
    expect((await fetch(`${t.baseUrl}/v1/sessions/${id}/live`)).status).toBe(401);
    await t.api('DELETE', `/v1/sessions/${id}`);
  });

  it('types into the page and follows a tab the person switches to', async () => {
    const { id, cdpUrl, liveUrl } = (
      await t.api('POST', '/v1/sessions', { url: `${t.fixture.url}/type` })
    ).body as { id: string; cdpUrl: string; liveUrl: string };
    const live = await viewer.newPage();
    await live.goto(liveUrl);
    await expect.poll(() => live.textContent('#state'), { timeout: 10_000 }).toBe('live');
    await live.click('#screen', { position: { x: 50, y: 50 } });
    await live.keyboard.type('hej');
    const client = await rawClient(cdpUrl);
    try {
      const pageSession = await attachToPage(client);
      const value = async () =>
        (
          (
            await client.command(
              'Runtime.evaluate',
              { expression: "document.getElementById('i').value" },
              pageSession,
            )
          ).result?.['result'] as { value?: string }
        ).value;
      await expect.poll(value).toBe('hej');
      // A second tab appears in the list; choosing it shows that tab.
      await client.command('Target.createTarget', { url: `${t.fixture.url}/button` });
      await expect.poll(() => live.locator('#tabs option').count()).toBe(2);
      const other = await live.locator('#tabs option', { hasText: 'button' }).getAttribute('value');
      await live.selectOption('#tabs', other);
      await live.click('#screen', { position: { x: 100, y: 100 } });
      const targets = await client.command('Target.getTargets');
      const button = (
        targets.result?.['targetInfos'] as { targetId: string; title: string }[]
      ).find((info) => info.title === 'button')!;
      const attached = await client.command('Target.attachToTarget', {
        targetId: button.targetId,
        flatten: true,
      });
      const buttonSession = String(attached.result?.['sessionId']);
      await expect
        .poll(async () => {
          const reply = await client.command(
            'Runtime.evaluate',
            { expression: "document.getElementById('b').textContent" },
            buttonSession,
          );
          return (reply.result?.['result'] as { value?: string }).value;
        })
        .toBe('clicked');
    } finally {
      client.close();
    }
    await t.api('DELETE', `/v1/sessions/${id}`);
    expect((await fetch(`${t.baseUrl}/v1/sessions/${id}/live?token=nope`)).status).toBe(401);
  });

  it("refuses another site's page: its WebSocket to the door and its fetch of the view", async () => {
    const { id, cdpUrl, liveUrl } = (await t.api('POST', '/v1/sessions', { url: t.fixture.url }))
      .body as { id: string; cdpUrl: string; liveUrl: string };
    // The fixture server is another origin on loopback (another port, another name).
    const foreign = await viewer.newPage();
    await foreign.goto(t.fixture.url);
    const outcome = await foreign.evaluate(
      (url) =>
        new Promise<string>((resolve) => {
          const ws = new WebSocket(url);
          ws.onopen = () => {
            resolve('open');
          };
          ws.onclose = (event) => {
            resolve(`closed ${String(event.code)}`);
          };
        }),
      cdpUrl,
    );
    // 1006: the upgrade was refused (403), the browser never had a socket.
    expect(outcome).toBe('closed 1006');
    // Refused for being another site's page before its token is read: a wrong one answers the same.
    const wrongToken = new URL(liveUrl);
    wrongToken.searchParams.set('token', 'not-the-token');
    for (const url of [new URL(liveUrl), wrongToken]) {
      const viewStatus = await new Promise<number>((resolve, reject) => {
        const req = request(url, { headers: { origin: t.fixture.url } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end();
      });
      expect(viewStatus).toBe(403);
    }
    await foreign.close();
    await t.api('DELETE', `/v1/sessions/${id}`);
  });
});
