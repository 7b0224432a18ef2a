// The hosted page /f/<org>/<form> checks its own origin when it loads (docs/forms-web.md,
// "Embedding a form"), in real Chromium against the real forms server.
import { expect, it } from 'vitest';
import { inboxUnderTest } from '../test-support/inbox.js';

const inbox = inboxUnderTest(() => ['https://www.acme.example']);
const formPath = '/api/orgs/acme/forms/contact';

it('says at load that its origin is not allowed, naming it and where to add it, and shows no form', async () => {
  // Only the company's site is allowed, not the forms server's own origin.
  await inbox.stack.api('PATCH', formPath, { allowedOrigins: ['https://www.acme.example'] });
  const page = await inbox.browser.newPage();
  await page.goto(`${inbox.stack.url}/f/acme/contact`);
  const alert = page.getByRole('alert');
  await alert.getByRole('heading', { name: 'This form cannot take answers here yet' }).waitFor();
  const text = await alert.innerText();
  expect(text).toContain(`Its owner has not allowed this page’s origin, ${inbox.stack.url}`);
  expect(text).toContain(`add ${inbox.stack.url} to its allowed origins`);
  expect(text).toContain('Settings → Allowed origins');
  // Nothing to type into, nothing to send.
  expect(await page.getByRole('textbox').count()).toBe(0);
  expect(await page.getByRole('button', { name: 'Send' }).count()).toBe(0);
  expect(await inbox.stack.submissions()).toEqual([]);

  // Once the origin is allowed, a reload shows the form and it sends.
  await inbox.stack.api('PATCH', formPath, {
    allowedOrigins: ['https://www.acme.example', inbox.stack.url],
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
  expect((await inbox.stack.submissions())[0]!.origin).toBe(inbox.stack.url);
  await page.close();
});
