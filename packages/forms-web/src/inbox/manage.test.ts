// Managing forms from the inbox (docs/forms-web.md, "Managing forms") in real Chromium against the
// real forms server: a new user sets a form up by clicking alone, from sign-in to a submission made
// on another origin; PATCH semantics, tokens, the split bundle, phones, dark mode and axe.
import { createHmac } from 'node:crypto';
import type { BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FormRecord } from './api.js';
import { axeViolations } from '../test-support/axe.js';
import { startReceiver } from '../test-support/receiver.js';
import { type Site, startSite } from '../test-support/site.js';
import { CONTACT_DEFINITION } from '../test-support/definitions.js';
import { inboxUnderTest } from '../test-support/inbox.js';

let site: Site;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  site = await startSite('localhost');
  // It answers like a real receiver that says something back: the log shows it.
  receiver = await startReceiver({ status: 202, body: '{"accepted":true}' });
});
const inbox = inboxUnderTest(() => [site.origin]);

afterAll(async () => {
  await site.close();
  await receiver.close();
});

const NEWSLETTER = {
  intro: { title: 'Join the newsletter', text: 'One email a month.' },
  questions: [
    { logicalName: 'name', type: 'text', label: 'Full name', required: true },
    { logicalName: 'email', type: 'email', label: 'Email', required: true },
    {
      logicalName: 'topics',
      type: 'choice',
      label: 'Topics',
      multiple: true,
      options: [
        { value: 'product', label: 'Product news' },
        { value: 'events', label: 'Events' },
      ],
    },
    { logicalName: 'consent', type: 'consent', label: 'I agree to receive emails', required: true },
  ],
  thanks: 'Welcome aboard!',
};

const readForm = async (id: string) =>
  (await inbox.stack.api<{ form: FormRecord }>('GET', `/api/orgs/acme/forms/${id}`)).form;

const openInbox = (options: BrowserContextOptions = {}) =>
  inbox.openInbox({ permissions: ['clipboard-read', 'clipboard-write'], ...options });

const editor = (page: Page) => page.getByLabel('Definition (JSON)');
const preview = (page: Page) => page.frameLocator('iframe[title="Preview of the form"]');
const tab = (page: Page, name: string) =>
  page.getByRole('navigation', { name: 'Form settings' }).getByRole('link', { name });

/** The 1-based line of `text` holding `needle`. */
const lineOf = (text: string, needle: string) =>
  text.split('\n').findIndex((l) => l.includes(needle)) + 1;

async function clipboard(page: Page): Promise<string> {
  return page.evaluate(() => navigator.clipboard.readText());
}

describe('managing forms', () => {
  it('takes a new user from sign-in to a submission made on another origin, by clicking alone', async () => {
    const page = await openInbox();
    await page.getByRole('link', { name: 'Forms', exact: true }).click();
    await page.getByRole('link', { name: 'New form' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Newsletter signup');
    expect(await page.getByLabel('Form id').inputValue()).toBe('newsletter-signup');
    await page.getByRole('button', { name: 'Create form' }).click();
    await page.getByRole('heading', { name: 'Newsletter signup: settings' }).waitFor();
    expect(await tab(page, 'Definition').getAttribute('aria-current')).toBe('page');
    // The builder is the default editor; the JSON is under Advanced.
    await page.getByRole('tab', { name: 'Builder', selected: true }).waitFor();
    await page.getByRole('tab', { name: 'Advanced (JSON)' }).click();

    // A mistake is shown on its own line, in the editor and in the list under it.
    const wrong = JSON.stringify(
      { ...NEWSLETTER, questions: [{ ...NEWSLETTER.questions[0], type: 'phone' }] },
      null,
      2,
    ).replace('  "questions"', '\n  "questions"'); // a blank line above the mistake
    await editor(page).fill(wrong);
    const badLine = lineOf(wrong, '"type": "phone"');
    await page
      .locator('.code-line.bad')
      .getByText(/Question 1 \(Full name\), type: must be one of/)
      .waitFor();
    expect(
      await page
        .locator('.code-line')
        .nth(badLine - 1)
        .getAttribute('class'),
    ).toContain('bad');
    // The message sits on the mistake's line, level with the text the person typed.
    const top = async (n: number) => (await page.locator('.code-line').nth(n).boundingBox())!.y;
    const lineHeight = (await top(1)) - (await top(0));
    expect(Math.round((await top(badLine - 1)) - (await top(0)))).toBe(
      Math.round((badLine - 1) * lineHeight),
    );
    expect(Math.round((await page.locator('.code-gutter .bad').boundingBox())!.y)).toBe(
      Math.round(await top(badLine - 1)),
    );
    await page
      .getByRole('listitem')
      .filter({ hasText: `Line ${String(badLine)}: Question 1 (Full name), type: must be one of` })
      .waitFor();
    const broken = JSON.stringify(NEWSLETTER, null, 2).replace('"Full name",', '"Full name"');
    await editor(page).fill(broken);
    await page
      .getByText(`Line ${String(lineOf(broken, '"required": true'))}: Expected "," or "}"`)
      .waitFor();
    expect(await page.getByRole('button', { name: 'Save definition' }).isEnabled()).toBe(true);

    // Pasting a good definition: no problems, and the real runtime shows it beside the editor.
    await editor(page).fill(JSON.stringify(NEWSLETTER, null, 2));
    await page.getByText('No problems found.').waitFor();
    await preview(page).getByRole('textbox', { name: 'Full name' }).waitFor();
    await preview(page).getByRole('heading', { name: 'Join the newsletter' }).waitFor();
    // The preview follows the draft as it is typed...
    await editor(page).fill(JSON.stringify(NEWSLETTER, null, 2).replace('Full name', 'Your name'));
    await preview(page).getByRole('textbox', { name: 'Your name' }).waitFor();
    // ...and sending in it runs the runtime's checks, then stores nothing.
    await preview(page).getByRole('button', { name: 'Send' }).click();
    await preview(page).getByText('This field is required.').first().waitFor();
    expect(await axeViolations(page)).toEqual([]);

    await page.getByRole('button', { name: 'Save definition' }).click();
    await page.getByRole('status').getByText('Saved as version 1.').waitFor();
    await page.getByRole('button', { name: 'Save definition' }).click();
    await page
      .getByRole('status')
      .getByText('No changes: the definition stays at version 1.')
      .waitFor();
    expect((await readForm('newsletter-signup')).definitionVersion).toBe(1);
    await editor(page).fill(JSON.stringify(NEWSLETTER, null, 2));
    await page.getByRole('button', { name: 'Save definition' }).click();
    await page.getByRole('status').getByText('Saved as version 2.').waitFor();
    await page.getByLabel('From').selectOption('1');
    await page.getByLabel('To', { exact: true }).selectOption('2');
    await page.getByRole('button', { name: 'Show changes' }).click();
    expect(await page.locator('.changes').innerText()).toBe(
      'Changed questions[name].label: "Your name" → "Full name"',
    );
    // Each version says when it was saved: the server's time, newest first.
    const { versions } = await inbox.stack.api<{
      versions: { version: number; createdAt: string }[];
    }>('GET', '/api/orgs/acme/forms/newsletter-signup/definitions');
    const savedList = page.getByRole('list', { name: 'Saved versions' });
    await expect
      .poll(() =>
        savedList.locator('time').evaluateAll((ts) => ts.map((t) => t.getAttribute('datetime'))),
      )
      .toEqual(versions.map((v) => v.createdAt));
    expect(await savedList.getByRole('listitem').first().innerText()).toMatch(
      /^Version 2 \(current\)\s+saved .+ \(.+\)$/,
    );

    // Origins: both warnings, a refused value, then the site and the hosted page.
    await tab(page, 'Allowed origins').click();
    await page.getByText('No origin is allowed yet').waitFor();
    await page.getByText(`its origin ${inbox.stack.url} is not allowed`).waitFor();
    await page.getByLabel('Origin to allow').fill(`${site.origin}/contact`);
    await page.getByRole('button', { name: 'Add origin' }).click();
    await page.getByRole('alert').getByText(`no path or trailing slash: ${site.origin}`).waitFor();
    await page.getByLabel('Origin to allow').fill(site.origin);
    await page.getByRole('button', { name: 'Add origin' }).click();
    await page.getByRole('button', { name: `Remove ${site.origin}` }).waitFor();
    expect(await page.getByText('No origin is allowed yet').count()).toBe(0);
    await page.getByRole('button', { name: `Allow ${inbox.stack.url}` }).click();
    await page.getByRole('button', { name: `Remove ${inbox.stack.url}` }).waitFor();
    expect(await page.getByText('is not allowed').count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);

    // A webhook to a loopback receiver; its secret is shown once.
    await tab(page, 'Webhooks').click();
    await page.getByLabel('Webhook URL').fill(receiver.url);
    await page.getByRole('button', { name: 'Add webhook' }).click();
    const secretBox = page.getByRole('region', { name: /Signing secret/ });
    const secret = (await secretBox.locator('pre code').first().innerText()).trim();
    expect(secret).toMatch(/^whsec_/);
    await secretBox.getByRole('button', { name: 'Copy secret' }).click();
    expect(await clipboard(page)).toBe(secret);
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'I have saved the secret' }).click();
    await expect.poll(() => page.getByText(secret).count()).toBe(0);
    await page.getByText('No deliveries yet').waitFor();

    // Send test: the form has no submission yet, so a sample made from the definition goes out,
    // signed, and the outcome and the log say what the receiver answered.
    const hookLog = page.getByRole('region', { name: `Deliveries to ${receiver.url}` });
    await hookLog.getByRole('button', { name: 'Send test' }).click();
    await hookLog
      .getByRole('status')
      .getByText(/^Test delivered: HTTP 202 in \d+ ms\. It carried a sample submission/)
      .waitFor();
    expect(receiver.received).toHaveLength(1);
    const sample = JSON.parse(receiver.received[0]!.body) as Record<string, unknown>;
    expect(sample).toMatchObject({
      type: 'submission.test',
      data: { form: 'newsletter-signup', answers: { email: 'test@example.com', consent: true } },
    });
    const tested = hookLog
      .getByRole('listitem')
      .filter({ hasText: 'Test with a sample submission' });
    expect(await tested.innerText()).toContain('Delivered');
    expect(await tested.locator('p').first().innerText()).toMatch(
      /^1 attempt · HTTP 202 · delivered /,
    );
    expect(await tested.locator('pre.response').innerText()).toBe('{"accepted":true}');
    const saved = await readForm('newsletter-signup');
    expect(saved.allowedOrigins).toEqual([site.origin, inbox.stack.url]); // kept by the webhook write
    expect(saved.definitionVersion).toBe(2);

    // Embed: the runtime tag, copied with one click, pasted on a page of another origin.
    await tab(page, 'Embed').click();
    await page.getByRole('button', { name: 'Copy runtime tag' }).click();
    const tag = await clipboard(page);
    expect(tag).toBe(
      `<script async src="${inbox.stack.url}/runtime.js" data-form="${inbox.stack.url}/api/orgs/acme/forms/newsletter-signup/definition"></script>`,
    );
    expect(await axeViolations(page)).toEqual([]);
    const visitor = await inbox.browser.newPage();
    await visitor.goto(
      site.page(
        '/newsletter',
        `<!doctype html><html lang="en"><head><title>Acme</title></head><body><main>${tag}</main></body></html>`,
      ),
    );
    await visitor.getByRole('textbox', { name: 'Full name' }).fill('Mary Jackson');
    await visitor.getByRole('textbox', { name: 'Email' }).fill('mary@example.com');
    await visitor.getByRole('checkbox', { name: 'Events' }).check();
    await visitor.getByRole('checkbox', { name: 'I agree to receive emails' }).check();
    await visitor.getByRole('button', { name: 'Send' }).click();
    await visitor.getByText('Welcome aboard!').waitFor();
    await visitor.close();

    // The receiver got it, signed with the secret the page showed (Standard Webhooks).
    await expect.poll(() => receiver.received.length).toBe(2);
    const hit = receiver.received[1]!;
    expect(JSON.parse(hit.body)).toMatchObject({ type: 'submission.created' });
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    const signed = `${String(hit.headers['webhook-id'])}.${String(hit.headers['webhook-timestamp'])}.${hit.body}`;
    expect(String(hit.headers['webhook-signature'])).toBe(
      `v1,${createHmac('sha256', key).update(signed).digest('base64')}`,
    );
    expect((JSON.parse(hit.body) as { data: { answers: unknown } }).data.answers).toEqual({
      name: 'Mary Jackson',
      email: 'mary@example.com',
      topics: ['events'],
      consent: true,
    });

    // The delivery log shows it above the test, and Redeliver sends it again, to this webhook.
    await tab(page, 'Webhooks').click();
    const delivered = hookLog.getByRole('listitem').filter({ hasText: 'A new submission' });
    await delivered.getByText('1 attempt · HTTP 202').waitFor();
    expect(await hookLog.locator('.delivery').first().innerText()).toContain('A new submission');
    expect(await delivered.locator('.state').first().innerText()).toBe('Delivered');
    await delivered.getByRole('button', { name: /^Redeliver/ }).click();
    await hookLog
      .getByRole('status')
      .getByText(/^Redelivery of the delivery of .* queued\.$/)
      .waitFor();
    await expect.poll(() => receiver.received.length).toBe(3);
    expect(receiver.received[2]!.headers['webhook-id']).toBe(hit.headers['webhook-id']);
    await delivered.getByText('2 attempts · HTTP 202').waitFor({ timeout: 10_000 });
    expect(await axeViolations(page)).toEqual([]);

    // And the submission is in the inbox.
    await page.getByRole('link', { name: /^All submissions/ }).click();
    await page.getByRole('link', { name: /Mary Jackson/ }).click();
    await page.locator('dl.answers').getByText('Full name').waitFor();
    expect(await page.locator('dl.answers').innerText()).toContain('Topics\nEvents');
    await page.close();
  });

  it('sends answers from the copied plain HTML form too', async () => {
    const page = await openInbox();
    await page.goto(`${inbox.stack.url}/#/forms/newsletter-signup/settings/embed`);
    await page.getByRole('button', { name: 'Copy HTML form' }).click();
    const html = await clipboard(page);
    await page.close();
    const visitor = await inbox.browser.newPage();
    await visitor.goto(
      site.page(
        '/plain',
        `<!doctype html><html lang="en"><head><title>Plain</title></head><body>${html}</body></html>`,
      ),
    );
    await visitor.getByRole('textbox', { name: 'Full name' }).fill('Dorothy Vaughan');
    await visitor.getByRole('textbox', { name: 'Email' }).fill('dorothy@example.com');
    await visitor.getByRole('checkbox', { name: 'Product news' }).check();
    await visitor.getByRole('checkbox', { name: 'I agree to receive emails' }).check();
    await visitor.getByRole('button', { name: 'Send' }).click();
    await visitor.getByText('Welcome aboard!').waitFor();
    await visitor.close();
    const dorothy = (await inbox.stack.submissions()).find(
      (s) => s.answers.name === 'Dorothy Vaughan',
    );
    expect(dorothy?.answers).toEqual({
      name: 'Dorothy Vaughan',
      email: 'dorothy@example.com',
      topics: ['product'],
      consent: true,
    });
  });

  it('shows why a webhook fails in its delivery log, the answer as text, and redelivers', async () => {
    // The receiver's answer is hostile: markup and a control character are shown as text.
    const failing = await startReceiver({
      status: 500,
      body: '<b>receiver</b> is broken<img src=x onerror="window.pwned=1">\u0000',
    });
    const hits = () => failing.received.length;
    try {
      await inbox.stack.putContactForm([site.origin], CONTACT_DEFINITION, [{ url: failing.url }]);
      await inbox.stack.submit({ name: 'Annie Easley', terms: true }, site.origin);
      await expect.poll(hits).toBe(1);
      const page = await openInbox();
      await page.getByRole('link', { name: 'Forms', exact: true }).click();
      await page.getByRole('link', { name: /Contact/ }).click();
      await page.getByRole('link', { name: 'Form settings' }).click();
      await tab(page, 'Webhooks').click();
      const log = page.getByRole('region', { name: `Deliveries to ${failing.url}` });
      const row = log.getByRole('listitem').filter({ hasText: 'A new submission' });
      await row.locator('.state').getByText('Retrying', { exact: true }).first().waitFor();
      expect(await row.locator('p').first().innerText()).toMatch(
        /^1 attempt · HTTP 500 · next try in /,
      );
      const attempt = row.locator('.attempts li').first();
      expect(await attempt.innerText()).toMatch(/^Failed, retrying · HTTP 500 · \d+ ms · /);
      const answer = attempt.locator('pre.response');
      expect(await answer.innerText()).toBe(
        '<b>receiver</b> is broken<img src=x onerror="window.pwned=1">\\u0000',
      );
      expect(await answer.locator('*').count()).toBe(0);
      expect(await page.evaluate(() => 'pwned' in window)).toBe(false);
      await row.getByRole('button', { name: /^Redeliver/ }).click();
      await log
        .getByRole('status')
        .getByText(/^Redelivery of the delivery of .* queued\.$/)
        .waitFor();
      await expect.poll(hits).toBe(2);
      // The second attempt is recorded a moment after the receiver saw it: Refresh until then.
      await expect
        .poll(
          async () => {
            await log.getByRole('button', { name: 'Refresh' }).click();
            return row.locator('p').first().innerText();
          },
          { timeout: 10_000, interval: 500 },
        )
        .toMatch(/^2 attempts · HTTP 500/);
      expect(await row.locator('.attempts > li').count()).toBe(2);
      expect(await axeViolations(page)).toEqual([]);
      await page.close();
    } finally {
      await failing.close();
    }
  });

  it('renames and describes a form without losing what the page does not show, and deletes it only once its name is typed', async () => {
    await inbox.stack.api('PUT', '/api/orgs/acme/forms/scratch', {
      name: 'Scratch',
      allowedOrigins: ['https://kept.example'],
      webhooks: [{ url: 'https://hooks.example/kept', secret: 'whsec_a2VwdA==' }],
      definition: NEWSLETTER,
    });
    const page = await openInbox();
    await page.getByRole('link', { name: 'Forms', exact: true }).click();
    await page.getByRole('link', { name: /Scratch/ }).click();
    await page.getByRole('link', { name: 'Form settings' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Scratch pad');
    await page.getByLabel('Description').fill('Only for trying things');
    await page.getByRole('button', { name: 'Save details' }).click();
    await page.getByRole('heading', { name: 'Scratch pad: settings' }).waitFor();
    const form = await readForm('scratch');
    expect(form).toMatchObject({
      name: 'Scratch pad',
      description: 'Only for trying things',
      allowedOrigins: ['https://kept.example'],
      webhooks: [{ url: 'https://hooks.example/kept', secret: 'whsec_a2VwdA==' }],
      definitionVersion: 1,
    });
    expect(await axeViolations(page)).toEqual([]);

    const del = page.getByRole('button', { name: 'Delete form' });
    expect(await del.isDisabled()).toBe(true);
    await page.getByLabel('Form name').fill('Scratch');
    expect(await del.isDisabled()).toBe(true);
    await page.getByLabel('Form name').fill('Scratch pad');
    await del.click();
    await page.getByRole('heading', { name: 'Forms' }).waitFor();
    await page.getByRole('link', { name: /Contact/ }).waitFor(); // the list has loaded
    expect(await page.getByRole('link', { name: /Scratch/ }).count()).toBe(0);
    await expect(readForm('scratch')).rejects.toThrow(/404/);
    await page.close();
  });

  it('mints a token that is shown once and signs in, lists it, and revokes it', async () => {
    const page = await openInbox();
    await page.getByRole('link', { name: 'Tokens' }).click();
    await page.getByLabel('Label').fill("Maria's laptop");
    await page.getByRole('button', { name: 'Mint token' }).click();
    const token = (await page.locator('.secret pre code').innerText()).trim();
    // The focus moves to it: a screen reader reads it out, the keyboard is next to Copy.
    await expect
      .poll(() => page.locator('.secret').evaluate((el) => el === document.activeElement))
      .toBe(true);
    expect(token).toMatch(/^havn_/);
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'I have saved the token' }).click();
    await expect.poll(() => page.getByText(token).count()).toBe(0);
    const item = page.getByRole('list', { name: 'Tokens' }).getByRole('listitem');
    await item.filter({ hasText: "Maria's laptop" }).waitFor();
    expect(await item.filter({ hasText: 'forms-web tests' }).count()).toBe(1);

    const works = async () =>
      (
        await fetch(`${inbox.stack.url}/api/orgs/acme/forms`, {
          headers: { authorization: `Bearer ${token}` },
        })
      ).status;
    expect(await works()).toBe(200);
    await page.getByRole('button', { name: "Revoke Maria's laptop" }).click();
    await page.getByRole('button', { name: "Revoke Maria's laptop" }).click(); // the confirmation
    await page.getByRole('status').getByText('Revoked "Maria\'s laptop".').waitFor();
    await expect.poll(() => item.filter({ hasText: "Maria's laptop" }).count()).toBe(0);
    expect(await works()).toBe(401);
    await page.close();
  });

  it('can be used with the keyboard alone: create a form, write its definition, allow and remove an origin, test and redeliver a webhook', async () => {
    const page = await openInbox();
    /** Presses Tab until the control with this role and name has the focus. */
    const tabTo = async (role: 'link' | 'button' | 'textbox' | 'tab', name: string | RegExp) => {
      const target = page.getByRole(role, { name, exact: true });
      for (let n = 0; n < 80; n++) {
        await page.keyboard.press('Tab');
        if (await target.evaluate((el) => el === document.activeElement).catch(() => false)) return;
      }
      throw new Error(`Tab never reached the ${role} "${String(name)}"`);
    };
    await tabTo('link', 'Forms');
    await page.keyboard.press('Enter');
    await tabTo('link', 'New form');
    await page.keyboard.press('Enter');
    await tabTo('textbox', 'Name');
    await page.keyboard.type('Keyboard form');
    await tabTo('button', 'Create form');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Keyboard form: settings' }).waitFor();

    // The builder's tab has the focus; the arrow key moves to the JSON's tab and opens it.
    await tabTo('tab', 'Builder');
    await page.keyboard.press('ArrowRight');
    await page.getByRole('tab', { name: 'Advanced (JSON)', selected: true }).waitFor();
    await tabTo('textbox', 'Definition (JSON)');
    await page.keyboard.press('Control+A');
    await page.keyboard.insertText(JSON.stringify(NEWSLETTER, null, 2));
    await preview(page).getByRole('textbox', { name: 'Full name' }).waitFor();
    await tabTo('button', 'Save definition'); // Tab leaves the editor: no keyboard trap
    await page.keyboard.press('Enter');
    await page.getByRole('status').getByText('Saved as version 1.').waitFor();

    await tabTo('link', 'Allowed origins');
    await page.keyboard.press('Enter');
    await tabTo('textbox', 'Origin to allow');
    await page.keyboard.type(site.origin);
    await page.keyboard.press('Enter');
    await page.getByRole('status').getByText(`Added ${site.origin}.`).waitFor();
    expect((await readForm('keyboard-form')).allowedOrigins).toEqual([site.origin]);
    await tabTo('button', `Remove ${site.origin}`);
    await page.keyboard.press('Enter');
    await page.getByRole('status').getByText(`Removed ${site.origin}.`).waitFor();
    expect((await readForm('keyboard-form')).allowedOrigins).toEqual([]);

    // A webhook: add it, send a test and redeliver it.
    await tabTo('link', 'Webhooks');
    await page.keyboard.press('Enter');
    await tabTo('textbox', 'Webhook URL');
    await page.keyboard.type(receiver.url);
    await page.keyboard.press('Enter');
    await tabTo('button', 'I have saved the secret');
    await page.keyboard.press('Enter');
    await tabTo('button', 'Send test');
    await page.keyboard.press('Enter');
    await page
      .getByRole('status')
      .getByText(/^Test delivered: HTTP 202/)
      .waitFor();
    await tabTo('button', /^Redeliver the delivery of /);
    await page.keyboard.press('Enter');
    await page
      .getByRole('status')
      .getByText(/^Redelivery of the delivery of .* queued\.$/)
      .waitFor();
    await page.getByText('2 attempts · HTTP 202').waitFor({ timeout: 10_000 });
    await page.close();
  });

  it('loads the management code only when a management view is opened', async () => {
    const context = await inbox.browser.newContext();
    const page = await context.newPage();
    const scripts: string[] = [];
    page.on('request', (r) => {
      if (r.resourceType() === 'script') scripts.push(new URL(r.url()).pathname);
    });
    await page.goto(inbox.stack.url);
    await page.getByLabel('Organisation', { exact: true }).fill(inbox.stack.org);
    await page.getByLabel('Organisation token').fill(inbox.stack.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: /Mary Jackson/ }).waitFor();
    expect(scripts.some((s) => s.includes('manage-view'))).toBe(false);
    await page.getByRole('link', { name: 'Tokens' }).click();
    await page.getByRole('heading', { name: 'Organisation tokens' }).waitFor();
    expect(scripts.some((s) => s.includes('manage-view'))).toBe(true);
    await context.close();
  });

  it('fits a phone in dark mode on every management view, with no serious axe violations', async () => {
    const page = await openInbox({
      colorScheme: 'dark',
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
    });
    const overflow = () =>
      page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    const views: [string, string][] = [
      ['#/new-form', 'New form'],
      ['#/tokens', 'Organisation tokens'],
      ...['details', 'definition', 'origins', 'webhooks', 'embed'].map((t): [string, string] => [
        `#/forms/newsletter-signup/settings/${t}`,
        'Newsletter signup: settings',
      ]),
    ];
    for (const [hash, heading] of views) {
      await page.goto(`${inbox.stack.url}/${hash}`);
      await page.getByRole('heading', { name: heading }).waitFor();
      await page.waitForLoadState('networkidle');
      expect(await overflow(), hash).toBeLessThanOrEqual(0);
      expect(await axeViolations(page), hash).toEqual([]);
    }
    expect(
      await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor),
    ).toBe('rgb(13, 17, 23)');
    await page.close();
  });
});
