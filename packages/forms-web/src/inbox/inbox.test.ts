// The inbox web app in real Chromium against a forms server: the whole path from a
// form embedded on another origin to reading the submission, plus export, redeliver, phone size
// and accessibility.
import { readFileSync } from 'node:fs';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations } from '../test-support/axe.js';
import { launchBrowser, PHONE } from '../test-support/browser.js';
import { ensureBuilt } from '../test-support/build.js';
import { CONTACT_DEFINITION } from '../test-support/definitions.js';
import { embedPage, type Site, startSite } from '../test-support/site.js';
import { type Stack, startFailingWebhook, startStack } from '../test-support/stack.js';

let browser: Browser;
let site: Site;
let stack: Stack;
let context: BrowserContext;
let hook: Awaited<ReturnType<typeof startFailingWebhook>>;

beforeAll(async () => {
  ensureBuilt();
  site = await startSite('localhost');
  stack = await startStack([site.origin]);
  hook = await startFailingWebhook();
  browser = await launchBrowser();
  context = await browser.newContext({ acceptDownloads: true });
});

afterAll(async () => {
  await browser.close();
  await site.close();
  await stack.close();
  await hook.close();
});

async function submitThroughEmbed(name: string, email: string, topic: string): Promise<void> {
  const page = await context.newPage();
  await page.goto(
    site.page(
      `/embed-${name.replace(/\W/g, '-')}`,
      embedPage(`${stack.url}/runtime.js`, stack.definitionUrl),
    ),
  );
  await page.getByRole('textbox', { name: 'Your name' }).fill(name);
  await page.getByRole('textbox', { name: 'Email' }).fill(email);
  await page.getByRole('radio', { name: topic }).check();
  await page.getByRole('checkbox', { name: 'I agree to the terms' }).check();
  await page.getByRole('button', { name: 'Send' }).click();
  await page.getByText('Thank you, we will be in touch.').waitFor();
  await page.close();
}

/** A fresh browser profile (nothing remembered) on the inbox, signed in with `token`. */
async function openInbox(token = stack.token, options: BrowserContextOptions = {}): Promise<Page> {
  const fresh = await browser.newContext({ acceptDownloads: true, ...options });
  const page = await fresh.newPage();
  page.on('close', () => {
    fresh.close().catch(() => undefined); // the browser may be closing already
  });
  await signIn(page, token);
  return page;
}

async function signIn(page: Page, token: string): Promise<void> {
  await page.goto(stack.url);
  await page.getByLabel('Organisation', { exact: true }).fill(stack.org);
  await page.getByLabel('Organisation token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

describe('inbox', () => {
  it('refuses a bad token with a clear message and keeps nothing', async () => {
    const page = await openInbox('not-the-token');
    await page
      .getByRole('alert')
      .getByText('That token is not valid. Check it and try again.')
      .waitFor();
    expect(await page.evaluate(() => localStorage.length + sessionStorage.length)).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    await page.close();
  });

  it('shows a submission made on another origin, newest first and unread, and marks it read when opened', async () => {
    await submitThroughEmbed('Ada Lovelace', 'ada@example.com', 'Sales');
    await submitThroughEmbed('Grace Hopper', 'grace@example.com', 'Support');
    const page = await openInbox();
    const feed = page.getByRole('list').last();
    await feed.getByRole('link').first().waitFor();
    const items = await feed.getByRole('listitem').allInnerTexts();
    expect(items).toHaveLength(2);
    expect(items[0]).toContain('Grace Hopper'); // newest first
    expect(items[1]).toContain('Ada Lovelace');
    expect(items.every((t) => t.includes('Unread'))).toBe(true);
    await page.locator('.heading').getByText('2 unread').waitFor();
    await page.getByRole('link', { name: /^All submissions\s*2 unread$/ }).waitFor();

    await page.getByRole('link', { name: 'Forms' }).click();
    await page
      .getByRole('link', { name: /Contact/ })
      .getByText('2 unread')
      .waitFor();
    expect(await page.getByRole('link', { name: /Contact/ }).innerText()).toContain(
      '2 submissions',
    );

    await page.getByRole('link', { name: /Contact/ }).click();
    await page.getByRole('link', { name: /Ada Lovelace/ }).click();
    const answers = page.locator('dl.answers');
    await answers.getByText('Your name').waitFor();
    const text = await answers.innerText();
    expect(text).toContain('Your name\nAda Lovelace');
    expect(text).toContain('Topic\nSales'); // the option's label, not its value
    expect(text).toContain('I agree to the terms\nYes');
    const meta = await page.locator('dl.meta').innerText();
    expect(meta).toContain(site.origin);
    expect(meta).toContain('Submit field source\nwebsite');

    const isRead = async () =>
      (await stack.submissions()).find((s) => s.answers.name === 'Ada Lovelace')?.read;
    await expect.poll(isRead).toBe(true);
    await page.getByRole('link', { name: /Back to/ }).click();
    await page.locator('.heading').getByText('1 unread').waitFor();
    await page.getByRole('link', { name: /^All submissions\s*1 unread$/ }).waitFor();
    const adaItem = page.getByRole('listitem').filter({ hasText: 'Ada Lovelace' });
    expect(await adaItem.innerText()).not.toContain('Unread');
    await page.close();
  });

  it('labels old answers with the definition version they were submitted against', async () => {
    await stack.putContactForm([site.origin], {
      ...CONTACT_DEFINITION,
      questions: [{ logicalName: 'name', type: 'text', label: 'Full name (v2)', required: true }],
    });
    const ada = (await stack.submissions()).find((s) => s.answers.name === 'Ada Lovelace')!;
    const page = await openInbox();
    await page.goto(`${stack.url}/#/submissions/contact/${ada.id}`);
    const answers = page.locator('dl.answers');
    await answers.getByText('Your name').waitFor();
    expect(await answers.innerText()).not.toContain('Full name (v2)');
    await page.close();
  });

  it('downloads the CSV export with the organisation token', async () => {
    const page = await openInbox();
    await page.goto(`${stack.url}/#/forms/contact`);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export CSV', exact: true }).click(),
    ]);
    // The embed code names this server's runtime and the form's public definition URL.
    await page.getByText('Embed this form').click();
    expect(await page.locator('.embed code').innerText()).toBe(
      `<script async src="${stack.url}/runtime.js" data-form="${stack.definitionUrl}"></script>`,
    );
    expect(download.suggestedFilename()).toMatch(
      /^acme-contact-submissions-\d{4}-\d{2}-\d{2}\.csv$/,
    );
    const path = await download.path();
    const csv = readFileSync(path, 'utf8');
    expect(csv).toContain('Ada Lovelace');
    expect(csv).toContain('Grace Hopper');
    await page.close();
  });

  it('lists webhook deliveries and redelivers them on request', async () => {
    await stack.putContactForm([site.origin], CONTACT_DEFINITION, [
      { url: hook.url, secret: 'test-webhook-secret' },
    ]);
    await submitThroughEmbed('Katherine Johnson', 'kj@example.com', 'Sales');
    await expect.poll(() => hook.hits()).toBe(1); // the first attempt, answered 500
    const kj = (await stack.submissions()).find((s) => s.answers.name === 'Katherine Johnson')!;
    const page = await openInbox();
    await page.goto(`${stack.url}/#/submissions/contact/${kj.id}`);
    const row = page.getByRole('row', { name: new RegExp(hook.url.replace(/[.]/g, '\\.')) });
    await row.waitFor();
    expect(await row.innerText()).toContain('HTTP 500');
    await page.getByRole('button', { name: 'Redeliver webhooks' }).click();
    await page.getByRole('status').getByText('Redelivery queued.').waitFor();
    await expect.poll(() => hook.hits()).toBe(2);
    expect(await axeViolations(page)).toEqual([]);
    await page.close();
  });

  it('fits a phone-sized screen and passes axe on the feed and the submission page, in dark mode', async () => {
    const page = await openInbox(stack.token, {
      ...PHONE,
      colorScheme: 'dark',
    });
    await page.getByRole('link', { name: /Katherine Johnson/ }).waitFor();
    expect(
      await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor),
    ).toBe('rgb(13, 17, 23)');
    const overflow = () =>
      page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(await overflow()).toBeLessThanOrEqual(0);
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('link', { name: /Katherine Johnson/ }).click();
    await page.locator('dl.answers').getByText('Your name').waitFor();
    expect(await overflow()).toBeLessThanOrEqual(0);
    expect(await axeViolations(page)).toEqual([]);
    await page.close();
  });

  it('pages back through older submissions on request', async () => {
    const already = (await stack.submissions()).length;
    for (let i = 0; i < 50; i++) {
      await stack.submit({ name: `Bulk ${String(i).padStart(2, '0')}`, terms: true }, site.origin);
    }
    const page = await openInbox();
    const rows = page.locator('ul.feed > li');
    await rows.first().getByText('Bulk 49').waitFor();
    expect(await rows.count()).toBe(50); // one page
    await page.getByRole('button', { name: 'Show older submissions' }).click();
    await expect.poll(() => rows.count()).toBe(50 + already);
    expect(await rows.last().innerText()).toContain('Ada Lovelace'); // the oldest
    expect(await page.getByRole('button', { name: 'Show older submissions' }).count()).toBe(0);
    await page.close();
  });
});
