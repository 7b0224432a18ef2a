// First run in the browser (docs/forms-web.md#first-run): a setup link makes the first
// organisation and signs in, with no curl and no admin token in the browser; the sign-in page
// explains organisation tokens; the webhooks view warns of a receiver the server will refuse.
// Real Chromium against the real forms server.
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { axeViolations } from '../test-support/axe.js';
import { launchBrowser, PHONE } from '../test-support/browser.js';
import { ensureBuilt } from '../test-support/build.js';
import { ADMIN_TOKEN, startEmptyServer } from '../test-support/stack.js';

let browser: Browser;
let server: Awaited<ReturnType<typeof startEmptyServer>>;

beforeAll(async () => {
  ensureBuilt();
  // Strict like a production server: webhooks to this machine are refused.
  server = await startEmptyServer({ allowPrivateWebhooks: false });
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser.close();
  await server.close();
});

async function fresh(options: BrowserContextOptions = {}): Promise<Page> {
  const context = await browser.newContext(options);
  const page = await context.newPage();
  page.on('close', () => {
    context.close().catch(() => undefined);
  });
  return page;
}

const noSideways = (page: Page) =>
  page.evaluate(
    (width) => document.documentElement.scrollWidth <= width,
    page.viewportSize()?.width ?? 0,
  );

it('a setup link creates the first organisation and signs in; used once, it explains itself', async () => {
  const link = await server.app.firstRunSetupLink(server.url);
  if (!link) throw new Error('no setup link on an empty server');
  const page = await fresh();
  await page.goto(link);
  await page.getByRole('heading', { name: 'Create your organisation' }).waitFor();
  expect(await axeViolations(page)).toEqual([]);
  await page.getByLabel('Organisation name').fill('Acme Ltd');
  // The short name follows the name until it is edited.
  expect(await page.getByLabel('Short name').inputValue()).toBe('acme-ltd');
  await page.getByLabel('Short name').fill('acme');
  await page.getByRole('button', { name: 'Create organisation' }).click();
  await page.getByRole('heading', { name: 'Your organisation is ready' }).waitFor();
  const token = await page.getByLabel('Your organisation token').inputValue();
  expect(token).toMatch(/^havn_/);
  expect(await axeViolations(page)).toEqual([]);
  await page.getByRole('button', { name: 'Open the inbox' }).click();
  await page.getByRole('heading', { name: 'Forms', exact: true }).waitFor();
  expect(await page.locator('.org').textContent()).toBe('acme');
  expect(page.url()).toBe(`${server.url}/#/forms`);
  // Kept as an organisation token would be after signing in; the code is in no storage.
  const stored = await page.evaluate(() =>
    Object.keys(localStorage)
      .map((k) => localStorage.getItem(k))
      .join('\n'),
  );
  expect(stored).toContain(token);
  expect(stored).not.toContain(link.split('/').at(-1));
  await page.close();

  // The same link again, elsewhere: it says why it no longer works.
  const again = await fresh();
  await again.goto(link);
  await again.getByLabel('Organisation name').fill('Another');
  await again.getByRole('button', { name: 'Create organisation' }).click();
  await again.getByRole('alert').getByText('This setup link no longer works').waitFor();
  await again.close();
});

it('the sign-in page says what an organisation token is and where one comes from', async () => {
  const page = await fresh();
  await page.goto(server.url);
  await page.getByText('What is an organisation token?').click();
  await page.getByText('Running the server yourself?').waitFor();
  expect(await page.locator('.help pre').textContent()).toBe(
    `curl -X POST -H "Authorization: Bearer $ADMIN_TOKEN" ${server.url}/api/setup-links`,
  );
  expect(await axeViolations(page)).toEqual([]);
  await page.close();
});

it('setup on a phone in dark mode: no sideways scrolling, no axe violations', async () => {
  const res = await fetch(`${server.url}/api/setup-links`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  const { url } = (await res.json()) as { url: string };
  const page = await fresh({ ...PHONE, colorScheme: 'dark' });
  await page.goto(url);
  await page.getByLabel('Organisation name').fill('Globex');
  expect(await noSideways(page)).toBe(true);
  expect(await axeViolations(page)).toEqual([]);
  await page.getByRole('button', { name: 'Create organisation' }).click();
  await page.getByRole('heading', { name: 'Your organisation is ready' }).waitFor();
  expect(await noSideways(page)).toBe(true);
  expect(await axeViolations(page)).toEqual([]);
  await page.close();
});

it('the webhooks view warns that the server will refuse a loopback receiver, naming the setting', async () => {
  const admin = (method: string, path: string, body?: unknown) =>
    fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body ?? {}),
    });
  await admin('POST', '/api/orgs', { slug: 'initech', name: 'Initech' });
  await admin('PUT', '/api/orgs/initech/forms/contact', { name: 'Contact' });
  const minted = (await (
    await admin('POST', '/api/orgs/initech/tokens', { label: 't' })
  ).json()) as {
    token: string;
  };
  const page = await fresh();
  await page.goto(server.url);
  await page.getByLabel('Organisation', { exact: true }).fill('initech');
  await page.getByLabel('Organisation token').fill(minted.token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('link', { name: 'Forms', exact: true }).waitFor();
  await page.goto(`${server.url}/#/forms/contact/settings/webhooks`);
  await page.getByLabel('Webhook URL').fill('http://127.0.0.1:4000/hooks/havn');
  await page.getByRole('button', { name: 'Add webhook' }).click();
  await page.getByRole('button', { name: 'I have saved the secret' }).click();
  const warning = page.locator('.warning', { hasText: 'The server will refuse to deliver here.' });
  await warning.waitFor();
  expect(await warning.textContent()).toContain(
    'which is in the refused range loopback 127.0.0.0/8; the forms server delivers to private, ' +
      'loopback and link-local addresses only with ALLOW_PRIVATE_WEBHOOKS=1',
  );
  expect(await axeViolations(page)).toEqual([]);
  await page.close();
});
