import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attachToPage, rawClient } from './test-support/cdp-client.js';
import { startSessionTestApp, type SessionTestApp } from './test-support/session-test-app.js';

// SESSION_MAX_PAGES (docs/sessions.md#configuration): a session keeps at most that many pages
// open across its contexts; a page past it, a client's or a popup, is closed at once and the
// session's events say so.

let t: SessionTestApp;
beforeAll(async () => {
  t = await startSessionTestApp({ maxPages: 2 });
});
afterAll(async () => {
  await t.close();
});

describe('pages of a session', () => {
  it('closes a page past SESSION_MAX_PAGES, a client-made one or a popup, and says so', async () => {
    const { id, cdpUrl } = await t.openSession();
    const client = await rawClient(cdpUrl);
    const pages = async () =>
      (
        (await client.command('Target.getTargets')).result?.['targetInfos'] as { type: string }[]
      ).filter((info) => info.type === 'page').length;
    const events = async () =>
      ((await t.api('GET', `/v1/sessions/${id}`)).body as { events: { message: string }[] }).events
        .map((e) => e.message)
        .filter((m) => m.includes('SESSION_MAX_PAGES'));
    try {
      const page = await attachToPage(client);
      // The second page fits; a third, from a client, does not.
      await client.command('Target.createTarget', { url: `${t.fixture.url}/button` });
      await client.command('Target.createTarget', { url: 'about:blank' });
      await expect.poll(events).toHaveLength(1);
      await expect.poll(pages).toBe(2);
      // Nor does a popup the page opens.
      await client.command(
        'Runtime.evaluate',
        { expression: "window.open('about:blank'); 1", userGesture: true },
        page,
      );
      await expect.poll(events).toHaveLength(2);
      await expect.poll(pages).toBe(2);
      expect((await events())[0]).toBe(
        'a page (about:blank) was closed: SESSION_MAX_PAGES (2) pages are open',
      );
    } finally {
      client.close();
    }
    await t.api('DELETE', `/v1/sessions/${id}`);
  });
});
