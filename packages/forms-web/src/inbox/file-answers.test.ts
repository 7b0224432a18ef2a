// A file question's answer in the inbox (docs/forms.md#file-uploads): the file's hostile name
// shown as text, never markup, and a download link that hands over the same bytes.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchBrowser } from '../test-support/browser.js';
import { ensureBuilt } from '../test-support/build.js';
import { type Site, startSite } from '../test-support/site.js';
import { type Stack, startStack } from '../test-support/stack.js';

let browser: Browser;
let site: Site;
let stack: Stack;

beforeAll(async () => {
  ensureBuilt();
  site = await startSite('localhost');
  stack = await startStack([site.origin]);
  await stack.putContactForm([site.origin], {
    intro: { title: 'Contact us' },
    questions: [
      { logicalName: 'name', type: 'text', label: 'Your name' },
      { logicalName: 'cv', type: 'file', label: 'CV', accept: ['application/pdf'] },
    ],
  });
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser.close();
  await site.close();
  await stack.close();
});

it('shows a file with a hostile name as text and downloads its bytes', async () => {
  const pdf = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(40_000, 0x20)]);
  const hostile = '"><img src=x onerror=alert(1)>.pdf';
  const body = new FormData();
  body.append('name', 'Mallory');
  body.append('cv', new Blob([pdf]), hostile);
  const res = await fetch(`${stack.url}/api/orgs/acme/forms/contact/submissions`, {
    method: 'POST',
    headers: { origin: site.origin, accept: 'application/json' },
    body,
  });
  expect(res.status).toBe(200);
  const { id } = (await res.json()) as { id: string };

  const context = await browser.newContext({ acceptDownloads: true });
  try {
    const page = await context.newPage();
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await page.goto(stack.url);
    await page.getByLabel('Organisation', { exact: true }).fill(stack.org);
    await page.getByLabel('Organisation token').fill(stack.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: /Mallory/ }).click();
    const answers = page.locator('dl.answers');
    await answers.getByText('CV').waitFor();
    // A browser sends `"` in a file name as %22; the rest arrives, and is shown, as typed.
    const link = answers.getByRole('link', { name: '%22><img src=x onerror=alert(1)>.pdf' });
    await link.waitFor();
    expect(await answers.locator('img').count()).toBe(0);
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    const path = await download.path();
    const { readFile } = await import('node:fs/promises');
    expect((await readFile(path)).equals(pdf)).toBe(true);
    expect(dialogs).toEqual([]);
    expect(id).toMatch(/^sub_/);
  } finally {
    await context.close();
  }
});
