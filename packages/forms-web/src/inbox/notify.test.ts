// The form's email-notice recipients in the inbox (docs/forms.md#email-notices), in real Chromium
// against the real forms server: saved with PATCH, so nothing else of the form changes.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { FormRecord } from './api.js';
import { launchBrowser } from '../test-support/browser.js';
import { ensureBuilt } from '../test-support/build.js';
import { type Stack, startStack } from '../test-support/stack.js';

let browser: Browser;
let stack: Stack;

beforeAll(async () => {
  ensureBuilt();
  stack = await startStack(['https://www.acme.example']);
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser.close();
  await stack.close();
});

const readForm = async () =>
  (await stack.api<{ form: FormRecord }>('GET', '/api/orgs/acme/forms/contact')).form;

async function openSettings(): Promise<Page> {
  const page = await browser.newPage();
  await page.goto(stack.url);
  await page.getByLabel('Organisation', { exact: true }).fill(stack.org);
  await page.getByLabel('Organisation token').fill(stack.token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('link', { name: 'Forms', exact: true }).waitFor();
  await page.goto(`${stack.url}/#/forms/contact/settings/details`);
  await page.getByRole('heading', { name: 'Email notices' }).waitFor();
  return page;
}

it('saves the recipients, refuses a bad address, and leaves the rest of the form alone', async () => {
  const before = await readForm();
  const page = await openSettings();
  const field = page.getByLabel('Send an email of each new submission to');
  expect(await field.inputValue()).toBe('');

  await field.fill('sales@acme.example\nops@acme.example');
  await page.getByRole('button', { name: 'Save recipients' }).click();
  await page.getByText('Saved. 2 addresses get an email of each new submission.').waitFor();
  const saved = await readForm();
  expect(saved.notify).toEqual(['sales@acme.example', 'ops@acme.example']);
  expect(saved.allowedOrigins).toEqual(before.allowedOrigins);
  expect(saved.name).toBe(before.name);

  // A mistake is named and nothing is sent.
  await field.fill('sales@acme.example\nnot an address');
  await page.getByRole('button', { name: 'Save recipients' }).click();
  expect(await page.getByRole('alert').textContent()).toBe(
    '“not an address” is not an email address.',
  );
  expect((await readForm()).notify).toEqual(['sales@acme.example', 'ops@acme.example']);

  // After a reload the field shows what the server holds.
  await page.reload();
  await page.getByRole('heading', { name: 'Email notices' }).waitFor();
  expect(await page.getByLabel('Send an email of each new submission to').inputValue()).toBe(
    'sales@acme.example\nops@acme.example',
  );
  await page.close();
});
