// The inbox refuses the admin token (docs/forms-web.md#the-inbox): it is a service credential and
// never goes into a browser. Real Chromium against the real forms server, which tells the two kinds
// of token apart.
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { ADMIN_TOKEN } from '../test-support/stack.js';
import { inboxUnderTest, signIn } from '../test-support/inbox.js';

const inbox = inboxUnderTest(() => ['https://www.acme.example']);

/** Everything the page keeps in localStorage and sessionStorage. */
const stored = (page: Page) =>
  page.evaluate(() => {
    const all = (store: Storage) =>
      Object.fromEntries(Object.keys(store).map((k) => [k, store.getItem(k) ?? '']));
    return { local: all(localStorage), session: all(sessionStorage) };
  });

it('refuses the admin token with a message, and keeps nothing of it in the browser', async () => {
  const page = await inbox.browser.newPage();
  await page.goto(inbox.stack.url);
  for (const org of ['acme', 'no-such-org']) {
    await signIn(page, { url: inbox.stack.url, org }, ADMIN_TOKEN);
    const alert = page.getByRole('alert');
    await alert.getByText('This is the admin token').waitFor();
    expect(await alert.textContent()).toBe(
      'This is the admin token; it never goes into a browser. Sign in with an organisation ' +
        'token: open a setup link (the server prints one at its first start; POST /api/setup-links ' +
        'with the admin token makes another) or mint one with POST /api/orgs/<org>/tokens.',
    );
    expect(await stored(page)).toEqual({ local: {}, session: {} });
  }
  // Still on the sign-in page after a reload: nothing was kept.
  await page.reload();
  await page.getByRole('button', { name: 'Sign in' }).waitFor();
  expect(await page.getByRole('link', { name: 'Forms', exact: true }).count()).toBe(0);

  // An organisation token is let in, and only then is the session kept.
  await signIn(page, inbox.stack, inbox.stack.token);
  await page.getByRole('link', { name: 'Forms', exact: true }).waitFor();
  const after = await stored(page);
  expect(JSON.parse(after.local['havn.inbox.session.v2'] ?? '{}') as unknown).toEqual({
    org: 'acme',
    token: inbox.stack.token,
  });
  await page.close();
});

it('drops a session an older inbox kept, which may hold the admin token', async () => {
  const page = await inbox.browser.newPage();
  await page.goto(inbox.stack.url);
  await page.evaluate((token) => {
    localStorage.setItem('havn.inbox.session', JSON.stringify({ org: 'acme', token }));
  }, ADMIN_TOKEN);
  await page.reload();
  await page.getByRole('button', { name: 'Sign in' }).waitFor();
  expect(await page.getByRole('link', { name: 'Forms', exact: true }).count()).toBe(0);
  expect(await stored(page)).toEqual({ local: {}, session: {} });
  await page.close();
});

it('still tells a bad token from the admin token', async () => {
  const page = await inbox.browser.newPage();
  await signIn(page, inbox.stack, 'havn_not-a-token');
  await page.getByRole('alert').getByText('That token is not valid').waitFor();
  expect(await stored(page)).toEqual({ local: {}, session: {} });
  await page.close();
});
