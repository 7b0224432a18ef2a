// The form's email-notice recipients in the inbox (docs/forms.md#email-notices), in real Chromium
// against the real forms server: saved with PATCH, so nothing else of the form changes.
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import type { FormRecord } from './api.js';
import { inboxUnderTest } from '../test-support/inbox.js';

const inbox = inboxUnderTest(() => ['https://www.acme.example']);

const readForm = async () =>
  (await inbox.stack.api<{ form: FormRecord }>('GET', '/api/orgs/acme/forms/contact')).form;

async function openSettings(): Promise<Page> {
  const page = await inbox.openInbox();
  await page.goto(`${inbox.stack.url}/#/forms/contact/settings/details`);
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
