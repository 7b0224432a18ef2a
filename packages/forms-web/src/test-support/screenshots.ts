// Regenerates docs/screenshots/*.png with real Chromium against the real forms server:
//   npx tsx packages/forms-web/src/test-support/screenshots.ts
// (the tests do not write them, so a test run never dirties the working tree).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContextOptions, Page } from 'playwright-core';
import { launchBrowser, PHONE } from './browser.js';
import { ensureBuilt, SCREENSHOT_DIR } from './build.js';
import { embedPage, startSite } from './site.js';
import { startStack } from './stack.js';

const desktop: BrowserContextOptions = { viewport: { width: 1280, height: 860 } };

ensureBuilt();
mkdirSync(SCREENSHOT_DIR, { recursive: true });
const site = await startSite('localhost');
const stack = await startStack([site.origin]);
const browser = await launchBrowser();
try {
  const hostCss = `<style>body{font-family:Georgia,serif;background:#faf7f2;margin:0}
main{max-width:44rem;margin:0 auto;padding:2rem 1.25rem}h1{color:#7a3e00}</style>`;
  const hostPage = site.page(
    '/contact',
    embedPage(
      `${stack.url}/runtime.js`,
      stack.definitionUrl,
      hostCss,
      '<p>Questions about seats or an order? Write to us.</p>',
    ),
  );
  const people = [
    ['Ada Lovelace', 'ada@example.com', 'Sales', 'We would like 40 seats for the spring term.'],
    ['Grace Hopper', 'grace@example.com', 'Support', 'The export button did nothing on my phone.'],
    ['Katherine Johnson', 'kj@example.com', 'Sales', 'Do you offer a discount for schools?'],
  ] as const;
  for (const [name, email, topic, message] of people) {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(hostPage);
    await page.getByRole('textbox', { name: 'Your name' }).fill(name);
    await page.getByRole('textbox', { name: 'Email' }).fill(email);
    await page.getByRole('textbox', { name: 'Message' }).fill(message);
    await page.getByRole('radio', { name: topic }).check();
    await page.getByRole('checkbox', { name: 'I agree to the terms' }).check();
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByText('Thank you').waitFor();
    await context.close();
  }

  const shoot = async (
    file: string,
    options: BrowserContextOptions,
    go: (page: Page) => Promise<void>,
    fullPage = false,
  ) => {
    const context = await browser.newContext(options);
    const page = await context.newPage();
    await go(page);
    await page.screenshot({ path: join(SCREENSHOT_DIR, file), fullPage });
    await context.close();
    console.log(`wrote docs/screenshots/${file}`);
  };
  const signIn = async (page: Page) => {
    await page.goto(stack.url);
    await page.getByLabel('Organisation', { exact: true }).fill(stack.org);
    await page.getByLabel('Organisation token').fill(stack.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: /Ada Lovelace/ }).waitFor();
  };

  await shoot(
    'runtime-desktop.png',
    desktop,
    async (page) => {
      await page.goto(hostPage);
      await page.getByRole('textbox', { name: 'Your name' }).fill('Ada Lovelace');
      await page.getByRole('textbox', { name: 'Email' }).fill('ada@');
      await page.getByRole('button', { name: 'Send' }).click();
      await page.getByRole('textbox', { name: 'Email' }).focus();
    },
    true,
  );
  await shoot('runtime-phone.png', PHONE, async (page) => {
    await page.goto(hostPage);
    await page.getByRole('heading', { name: 'Contact us' }).waitFor();
  });
  await shoot('inbox-desktop.png', desktop, async (page) => {
    await signIn(page);
    await page.getByRole('link', { name: /Grace Hopper/ }).click();
    await page.locator('dl.answers').waitFor();
    await page.getByRole('link', { name: 'All submissions' }).click();
    await page.getByRole('link', { name: /Ada Lovelace/ }).waitFor();
  });
  await shoot('inbox-phone.png', PHONE, async (page) => {
    await signIn(page);
  });
  await shoot(
    'submission-phone.png',
    PHONE,
    async (page) => {
      await signIn(page);
      await page.getByRole('link', { name: /Ada Lovelace/ }).click();
      await page.locator('dl.answers').getByText('Your name').waitFor();
    },
    true,
  );
} finally {
  await browser.close();
  await site.close();
  await stack.close();
}
