import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attachToPage, rawClient } from '../test-support/cdp-client.js';
import {
  BROWSERS,
  startSessionTestApp,
  type SessionTestApp,
} from '../test-support/session-test-app.js';

// The live view's read-only token (docs/sessions.md#live-view): a watch link shows the session and
// can do nothing else, even for a script that reads the token out of the page.

describe.each(BROWSERS)('a view token, against %s', (chromiumPath) => {
  let t: SessionTestApp;
  let session: { id: string; cdpUrl: string; liveUrl: string; watchUrl: string };
  let viewToken: string;
  let sessionToken: string;

  beforeAll(async () => {
    t = await startSessionTestApp({ chromiumPath });
    session = (await t.openSession()) as typeof session;
    viewToken = new URL(session.watchUrl).searchParams.get('token')!;
    sessionToken = new URL(session.cdpUrl).searchParams.get('token')!;
  });
  afterAll(async () => {
    await t.close();
  });

  it('comes in its own watchUrl, and read-only pages carry it instead of the session token', async () => {
    expect(session.watchUrl).toBe(`${t.baseUrl}/v1/sessions/${session.id}/live?token=${viewToken}`);
    expect(viewToken).not.toBe(sessionToken);
    for (const url of [session.watchUrl, `${session.liveUrl}&interactive=0`]) {
      const page = await (await fetch(url)).text();
      expect(page, url).toContain(viewToken);
      expect(page, url).not.toContain(sessionToken);
      expect(page, url).toContain('"interactive":false');
    }
    const driving = await (await fetch(session.liveUrl)).text();
    expect(driving).toContain(sessionToken);
    // It opens nothing but the live view and the door.
    const discovery = await fetch(
      `${t.baseUrl}/v1/sessions/${session.id}/json/version?token=${viewToken}`,
    );
    expect(discovery.status).toBe(401);
  });

  it('lists targets and screencasts at the door, and is refused Runtime, Input and the rest', async () => {
    const watcher = await rawClient(
      `${t.baseUrl.replace('http', 'ws')}/v1/sessions/${session.id}/cdp?token=${viewToken}`,
    );
    try {
      const page = await attachToPage(watcher);
      expect((await watcher.command('Page.startScreencast', { format: 'jpeg' }, page)).error).toBe(
        undefined,
      );
      await watcher.event((e) => e.method === 'Page.screencastFrame');
      for (const [method, params, onPage] of [
        ['Runtime.evaluate', { expression: 'document.cookie' }, true],
        ['Input.dispatchMouseEvent', { type: 'mousePressed', x: 10, y: 10 }, true],
        ['Input.insertText', { text: 'x' }, true],
        ['Network.getCookies', {}, true],
        ['Storage.getCookies', {}, false],
        ['Target.createTarget', { url: 'about:blank' }, false],
        ['Target.sendMessageToTarget', { message: '{}', sessionId: page }, false],
      ] as const) {
        const reply = await watcher.command(method, params, onPage ? page : undefined);
        expect(reply.error?.message, method).toBe(
          `havn: ${method} is not allowed with a view token: it may only watch (the target list and the screencast)`,
        );
      }
    } finally {
      watcher.close();
    }
  });
});
