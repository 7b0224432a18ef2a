// A form owner's first hour (docs/forms-web.md#the-inbox), by clicks and keys alone in real
// Chromium, with no request made outside the UI: the built forms server started as `npm start`
// starts it (loopback webhooks allowed) on an empty data directory; the setup link read from its
// output; an organisation created; a form built with the visual builder (a text, an email and a
// multiple-choice question with three options; one reordered, one duplicated then deleted); the
// origin allowed, a webhook to a loopback receiver tested, the form embedded on a page of another
// port and sent; then the submission in the inbox with its choice label, marked unread, and the
// CSV exported with labels. Once on a desktop, once at 390×844 in dark mode; axe on every view.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { axeViolations } from '../test-support/axe.js';
import { launchBrowser, PHONE } from '../test-support/browser.js';
import { ensureBuilt, WEB_DIR } from '../test-support/build.js';
import { startReceiver } from '../test-support/receiver.js';
import { startSite } from '../test-support/site.js';

const MAIN = fileURLToPath(new URL('../../../forms/dist/main.js', import.meta.url));

let browser: Browser;

beforeAll(async () => {
  ensureBuilt();
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser.close();
});

interface Started {
  url: string;
  setupLink: string;
  stop(): Promise<void>;
}

/** The built server on a fresh data directory, with npm start's settings; its output is read. */
async function startFresh(): Promise<Started> {
  const dir = mkdtempSync(join(tmpdir(), 'havn-journey-'));
  const child: ChildProcess = spawn(process.execPath, [MAIN], {
    env: {
      PATH: process.env.PATH ?? '',
      PORT: '0',
      USER_DATA_DIR: dir,
      WEB_DIR,
      FORM_ADMIN_TOKEN: 'journey-admin-token',
      ALLOW_PRIVATE_WEBHOOKS: '1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const found = await new Promise<{ url: string; setupLink: string }>((resolve, reject) => {
    const look = (chunk: Buffer) => {
      output += chunk.toString();
      const url = /listening on (http:\/\/\S+?)"/.exec(output)?.[1];
      const link = /open (http:\/\/\S+\/#\/setup\/[\w-]+)/.exec(output)?.[1];
      if (url && link) resolve({ url, setupLink: link });
    };
    child.stdout?.on('data', look);
    child.stderr?.on('data', look);
    child.once('exit', (code) => {
      reject(new Error(`the server exited (${String(code)}) before its setup link:\n${output}`));
    });
  }).catch(async (err: unknown) => {
    await stop();
    throw err;
  });
  return { ...found, stop };
}

async function clipboard(page: Page): Promise<string> {
  return page.evaluate(() => navigator.clipboard.readText());
}

async function journey(options: BrowserContextOptions): Promise<void> {
  const server = await startFresh();
  const receiver = await startReceiver();
  const site = await startSite();
  const context = await browser.newContext({
    ...options,
    acceptDownloads: true,
    permissions: ['clipboard-read', 'clipboard-write'],
  });
  try {
    const page = await context.newPage();
    const main = page.locator('#main');
    const noAxe = async () => {
      expect(await axeViolations(page)).toEqual([]);
      expect(
        await page.evaluate(
          (width) => document.documentElement.scrollWidth <= width,
          page.viewportSize()?.width ?? 0,
        ),
      ).toBe(true);
    };

    // The setup link from the server's output makes the organisation and signs in.
    await page.goto(server.setupLink);
    await page.getByLabel('Organisation name').fill('Acme Ltd');
    await noAxe();
    await page.getByRole('button', { name: 'Create organisation' }).click();
    await page.getByRole('button', { name: 'Open the inbox' }).click();

    // A form, built with the builder.
    await page.getByRole('link', { name: 'New form' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Sales enquiry');
    await page.getByRole('button', { name: 'Create form' }).click();
    await page.getByRole('tab', { name: 'Builder', selected: true }).waitFor();
    await page.getByRole('button', { name: 'Delete Question 2 (Email)' }).click();
    await page.getByRole('button', { name: 'Delete Question 1 (Your name)' }).click();
    const addType = page.getByLabel('New question type');
    const add = page.getByRole('button', { name: 'Add question' });
    await addType.selectOption('text');
    await add.click();
    await page.locator('#b-q0-label').fill('Full name');
    await page.locator('#b-q0-required').check();
    await addType.selectOption('choice');
    await add.click();
    await page.locator('#b-q1-label').fill('Company size');
    await page.getByLabel('Option 1', { exact: true }).fill('1 to 10');
    await page.getByLabel('Option 2', { exact: true }).fill('11 to 50');
    await page.getByRole('button', { name: 'Add option' }).click();
    await page.getByLabel('Option 3', { exact: true }).fill('51 or more');
    await addType.selectOption('email');
    await add.click();
    await page.locator('#b-q2-label').fill('Work email');
    await page.getByRole('button', { name: 'Move up: Question 3 (Work email)' }).click();
    await page.getByRole('heading', { name: 'Question 2 (Work email)' }).waitFor();
    await page.getByRole('button', { name: 'Duplicate Question 3 (Company size)' }).click();
    await page.getByRole('button', { name: 'Delete Question 4 (Company size (copy))' }).click();
    await page.getByText('No problems found.').waitFor();
    // The preview follows the builder a moment later (it may show the copy for a while): once it
    // has caught up with the deletion it shows one "51 or more" again.
    const preview = page.frameLocator('iframe');
    await expect.poll(() => preview.getByRole('radio', { name: '51 or more' }).count()).toBe(1);
    await noAxe();
    await page.getByRole('button', { name: 'Save definition' }).click();
    await page.getByRole('status').getByText('Saved as version 1.').waitFor();

    // The site's origin, a webhook to a receiver on this machine (Send test delivered), the embed.
    const tab = (name: string) =>
      page.getByRole('navigation', { name: 'Form settings' }).getByRole('link', { name });
    await tab('Allowed origins').click();
    await page.getByLabel('Origin to allow').fill(site.origin);
    await page.getByRole('button', { name: 'Add origin' }).click();
    await page.getByRole('button', { name: `Remove ${site.origin}` }).waitFor();
    await noAxe();
    await tab('Webhooks').click();
    await page.getByLabel('Webhook URL').fill(receiver.url);
    await page.getByRole('button', { name: 'Add webhook' }).click();
    await page.getByRole('button', { name: 'I have saved the secret' }).click();
    const hookLog = page.getByRole('region', { name: `Deliveries to ${receiver.url}` });
    await hookLog.getByRole('button', { name: 'Send test' }).click();
    await hookLog
      .getByRole('status')
      .getByText(/^Test delivered: HTTP 204/)
      .waitFor();
    await noAxe();
    await tab('Embed').click();
    await page.getByRole('button', { name: 'Copy runtime tag' }).click();
    const tag = await clipboard(page);
    await noAxe();

    // A visitor on another port sends the form.
    const visitor = await context.newPage();
    await visitor.goto(
      site.page(
        '/contact',
        `<!doctype html><html lang="en"><head><title>Acme</title></head><body><main>${tag}</main></body></html>`,
      ),
    );
    await visitor.getByRole('textbox', { name: 'Full name' }).fill('Ada Lovelace');
    await visitor.getByRole('textbox', { name: 'Work email' }).fill('ada@example.com');
    await visitor.getByRole('radio', { name: '11 to 50' }).check();
    await visitor.getByRole('button', { name: 'Send' }).click();
    await visitor.getByText('Thank you!').waitFor();
    await visitor.close();
    await expect.poll(() => receiver.received.length).toBe(2);

    // In the inbox with the choice's label; opened (read), then marked unread; exported.
    await page.getByRole('link', { name: /^All submissions/ }).click();
    const row = page.locator('ul.feed > li').filter({ hasText: 'Ada Lovelace' });
    await row.getByText('Ada Lovelace · ada@example.com · 11 to 50').waitFor();
    await noAxe();
    await row.getByRole('link').click();
    await page.locator('dl.answers').getByText('11 to 50').waitFor();
    await noAxe();
    await page.getByRole('button', { name: 'Mark unread' }).click();
    await main.getByText('1 unread').waitFor();
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV with labels' }).click();
    const csv = readFileSync(await (await download).path(), 'utf8');
    expect(csv.split('\r\n')[0]).toMatch(/,full-name,work-email,company-size,/);
    expect(csv).toContain(',Ada Lovelace,ada@example.com,11 to 50,');
  } finally {
    await context.close();
    await site.close();
    await receiver.close();
    await server.stop();
  }
}

it('from a fresh start to a submission in the inbox, by clicks alone, on a desktop', async () => {
  await journey({});
}, 180_000);

it('the same at 390×844 in dark mode', async () => {
  await journey({ ...PHONE, colorScheme: 'dark' });
}, 180_000);
