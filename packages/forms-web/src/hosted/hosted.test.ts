// The hosted page /f/<org>/<form> checks its own origin when it loads (docs/forms-web.md,
// "Embedding a form"), in real Chromium against the real forms server.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchBrowser } from '../test-support/browser.js';
import { ensureBuilt } from '../test-support/build.js';
import { type Stack, startStack } from '../test-support/stack.js';

let browser: Browser;
let stack: Stack;
const formPath = '/api/orgs/acme/forms/contact';

beforeAll(async () => {
  ensureBuilt();
  stack = await startStack(['https://www.acme.example']);
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser.close();
  await stack.close();
});

it('says at load that its origin is not allowed, naming it and where to add it, and shows no form', async () => {
  // Only the company's site is allowed, not the forms server's own origin.
  await stack.api('PATCH', formPath, { allowedOrigins: ['https://www.acme.example'] });
  const page = await browser.newPage();
  await page.goto(`${stack.url}/f/acme/contact`);
  const alert = page.getByRole('alert');
  await alert.getByRole('heading', { name: 'This form cannot take answers here yet' }).waitFor();
  const text = await alert.innerText();
  expect(text).toContain(`Its owner has not allowed this page’s origin, ${stack.url}`);
  expect(text).toContain(`add ${stack.url} to its allowed origins`);
  expect(text).toContain('Settings → Allowed origins');
  // Nothing to type into, nothing to send.
  expect(await page.getByRole('textbox').count()).toBe(0);
  expect(await page.getByRole('button', { name: 'Send' }).count()).toBe(0);
  expect(await stack.submissions()).toEqual([]);

  // Once the origin is allowed, a reload shows the form and it sends.
  await stack.api('PATCH', formPath, {
    allowedOrigins: ['https://www.acme.example', stack.url],
  });
  await page.reload();
  await page.getByRole('heading', { name: 'Contact us' }).waitFor();
  expect(await page.getByRole('alert').filter({ hasText: 'cannot take answers' }).count()).toBe(0);
  await page.getByRole('textbox', { name: 'Your name' }).fill('Hosted Visitor');
  await page.getByRole('textbox', { name: 'Email' }).fill('hosted@example.com');
  await page.getByRole('radio', { name: 'Support' }).check();
  await page.getByRole('checkbox', { name: 'I agree to the terms' }).check();
  await page.getByRole('button', { name: 'Send' }).click();
  await page.getByText('Thank you, we will be in touch.').waitFor();
  expect((await stack.submissions())[0]!.origin).toBe(stack.url);
  await page.close();
});
