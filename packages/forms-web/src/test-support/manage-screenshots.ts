// Regenerates docs/screenshots/manage-*.png (the management views, desktop and phone), the
// submission's delete confirmation and the setup page, with real Chromium against the real forms
// server:
//   npx tsx packages/forms-web/src/test-support/manage-screenshots.ts
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContextOptions, Page } from 'playwright-core';
import { launchBrowser, PHONE } from './browser.js';
import { ensureBuilt, SCREENSHOT_DIR } from './build.js';
import { CONTACT_DEFINITION } from './definitions.js';
import { startReceiver } from './receiver.js';
import { embedPage, startSite } from './site.js';
import { startEmptyServer, startStack } from './stack.js';

const desktop: BrowserContextOptions = { viewport: { width: 1440, height: 900 } };

ensureBuilt();
mkdirSync(SCREENSHOT_DIR, { recursive: true });
const site = await startSite('localhost');
const stack = await startStack([site.origin]);
// One receiver that answers, one that is down: the webhooks view shows both kinds of log.
const receiver = await startReceiver({ status: 200, body: '{"received":true}' });
const failing = await startReceiver({
  status: 503,
  body: '{"error":"The CRM is down for maintenance until 03:00 UTC"}',
});
const browser = await launchBrowser();
try {
  await stack.putContactForm([site.origin], CONTACT_DEFINITION, [
    { url: receiver.url },
    { url: failing.url },
  ]);
  const host = site.page('/contact', embedPage(`${stack.url}/runtime.js`, stack.definitionUrl));
  for (const name of ['Ada Lovelace', 'Grace Hopper']) {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(host);
    await page.getByRole('textbox', { name: 'Your name' }).fill(name);
    await page.getByRole('textbox', { name: 'Email' }).fill('someone@example.com');
    await page.getByRole('radio', { name: 'Sales' }).check();
    await page.getByRole('checkbox', { name: 'I agree to the terms' }).check();
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByText('Thank you').waitFor();
    await context.close();
  }
  while (receiver.received.length < 2 || failing.received.length < 2) {
    await new Promise((r) => setTimeout(r, 100));
  }

  const shoot = async (
    file: string,
    options: BrowserContextOptions,
    go: (p: Page) => Promise<void>,
    fullPage = true,
  ) => {
    // SHOTS=<prefix> retakes only the pictures whose names start so.
    if (process.env.SHOTS && !file.startsWith(process.env.SHOTS)) return;
    const context = await browser.newContext(options);
    const page = await context.newPage();
    await page.goto(stack.url);
    await page.getByLabel('Organisation', { exact: true }).fill(stack.org);
    await page.getByLabel('Organisation token').fill(stack.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'Tokens' }).waitFor();
    await go(page);
    await page.waitForTimeout(400); // the preview's pause after typing
    await page.screenshot({ path: join(SCREENSHOT_DIR, file), fullPage });
    await context.close();
    console.log(`wrote docs/screenshots/${file}`);
  };
  const open = async (page: Page, hash: string, text: string) => {
    await page.goto(`${stack.url}/${hash}`);
    await page.getByRole('heading', { name: text }).waitFor();
  };
  for (const [suffix, options] of [
    ['desktop', desktop],
    ['phone', PHONE],
  ] as const) {
    await shoot(`manage-new-form-${suffix}.png`, options, async (page) => {
      await open(page, '#/new-form', 'New form');
      await page.getByLabel('Name', { exact: true }).fill('Newsletter signup');
    });
    await shoot(`manage-details-${suffix}.png`, options, async (page) => {
      await open(page, '#/forms/contact/settings/details', 'Contact: settings');
    });
    await shoot(
      `manage-definition-${suffix}.png`,
      options,
      async (page) => {
        await open(page, '#/forms/contact/settings/definition', 'Contact: settings');
        await page.frameLocator('iframe').getByRole('textbox', { name: 'Your name' }).waitFor();
        // The builder is long: the first screen shows its tabs, the intro and the first
        // question, with the preview beside them.
        await page.getByRole('tab', { name: 'Builder' }).focus();
      },
      false,
    );
    await shoot(
      `manage-definition-steps-${suffix}.png`,
      options,
      async (page) => {
        await open(page, '#/forms/contact/settings/definition', 'Contact: settings');
        await page.getByRole('button', { name: 'Split into steps' }).click();
        await page.getByLabel('Step 1 title').fill('You');
        await page.getByRole('button', { name: 'Add step' }).click();
        await page.getByLabel('Step 2 title').fill('Getting started');
        // The start date, only for sales, on the second step (the last question then).
        await page.locator('#b-q6-if-mode').selectOption('when');
        await page.locator('#b-q6-if-question').selectOption('topic');
        await page.locator('#b-q6-if-value').selectOption('sales');
        await page.locator('#b-q6-step').selectOption('Step 2 (Getting started)');
        await page.getByRole('heading', { name: 'Question 8 (Start date)' }).waitFor();
        // Its card, with its step and condition, at the top of the screen.
        await page.locator('#b-q7').evaluate((el) => {
          el.scrollIntoView({ block: 'start' });
        });
      },
      false,
    );
    await shoot(`manage-definition-json-${suffix}.png`, options, async (page) => {
      await open(page, '#/forms/contact/settings/definition', 'Contact: settings');
      await page.frameLocator('iframe').getByRole('textbox', { name: 'Your name' }).waitFor();
      await page.getByRole('tab', { name: 'Advanced (JSON)' }).click();
      const editor = page.getByLabel('Definition (JSON)');
      const text = await editor.inputValue();
      await editor.fill(text.replace('"type": "email"', '"type": "phone"'));
      await page.getByRole('button', { name: /^Line \d+$/ }).click();
    });
    await shoot(`manage-origins-${suffix}.png`, options, async (page) => {
      await open(page, '#/forms/contact/settings/origins', 'Contact: settings');
      await page.getByLabel('Origin to allow').fill('https://www.acme.example/');
      await page.getByRole('button', { name: 'Add origin' }).click();
      await page.getByRole('alert').waitFor();
    });
    await shoot(`manage-webhooks-${suffix}.png`, options, async (page) => {
      await open(page, '#/forms/contact/settings/webhooks', 'Contact: settings');
      const log = page.getByRole('region', { name: `Deliveries to ${receiver.url}` });
      await log.getByText('A new submission').first().waitFor();
      await log.getByRole('button', { name: 'Send test' }).click();
      await log
        .getByRole('status')
        .getByText(/^Test delivered/)
        .waitFor();
    });
    await shoot(`manage-embed-${suffix}.png`, options, async (page) => {
      await open(page, '#/forms/contact/settings/embed', 'Contact: settings');
    });
    await shoot(`submission-delete-${suffix}.png`, options, async (page) => {
      await open(page, '#/forms/contact', 'Contact');
      await page.locator('ul.feed > li').first().getByRole('link').click();
      await page.getByRole('button', { name: 'Delete…' }).click();
      await page.getByRole('button', { name: 'Delete for good' }).waitFor();
    });
    await shoot(`manage-tokens-${suffix}.png`, options, async (page) => {
      await open(page, '#/tokens', 'Organisation tokens');
      await page.getByLabel('Label').fill('Zapier');
      await page.getByRole('button', { name: 'Mint token' }).click();
      await page.locator('.secret').waitFor();
    });
  }
  // The setup page of a server with no organisation yet.
  const empty = await startEmptyServer();
  try {
    const link = await empty.app.firstRunSetupLink(empty.url);
    for (const [suffix, options] of [
      ['desktop', desktop],
      ['phone', PHONE],
    ] as const) {
      const context = await browser.newContext(options);
      const page = await context.newPage();
      await page.goto(link ?? empty.url);
      await page.getByLabel('Organisation name').fill('Acme Ltd');
      await page.screenshot({ path: join(SCREENSHOT_DIR, `setup-${suffix}.png`), fullPage: true });
      await context.close();
      console.log(`wrote docs/screenshots/setup-${suffix}.png`);
    }
  } finally {
    await empty.close();
  }
} finally {
  await browser.close();
  await site.close();
  await stack.close();
  await receiver.close();
  await failing.close();
}
