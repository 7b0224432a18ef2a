// A "pow" form (docs/forms.md#spam) embedded on another loopback origin in real Chromium: the
// runtime fetches a challenge from the real server, solves it while the page is used, and the
// submission arrives as a person's, not as spam.
import { type Browser, type BrowserContext, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_ARGS, launchBrowser } from '../test-support/browser.js';
import { ensureBuilt } from '../test-support/build.js';
import { embedPage, type Site, startSite } from '../test-support/site.js';
import { type Stack, startStack } from '../test-support/stack.js';

let browser: Browser;
let site: Site;
let stack: Stack;
let context: BrowserContext;

const quick = {
  intro: { title: 'Quick question' },
  questions: [{ logicalName: 'name', type: 'text', label: 'Your name', required: true }],
  thanks: 'Got it.',
};

beforeAll(async () => {
  ensureBuilt();
  site = await startSite('localhost');
  stack = await startStack([site.origin]);
  browser = await launchBrowser();
  context = await browser.newContext();
  await stack.api('PUT', '/api/orgs/acme/forms/quick', {
    name: 'Quick',
    allowedOrigins: [site.origin],
    spamProtection: 'pow',
    definition: quick,
  });
});

afterAll(async () => {
  await browser.close();
  await site.close();
  await stack.close();
});

describe('proof of work in the runtime', () => {
  it('solves the challenge while the person types, and the submission is not spam', async () => {
    const definitionUrl = `${stack.url}/api/orgs/acme/forms/quick/definition`;
    const page = await context.newPage();
    const challenges: string[] = [];
    page.on('request', (r) => {
      if (r.url().endsWith('/challenge')) challenges.push(r.url());
    });
    await page.goto(site.page('/pow', embedPage(`${stack.url}/runtime.js`, definitionUrl)));
    await page.getByRole('heading', { name: 'Quick question' }).waitFor();
    // The challenge is asked for at load, before anyone has typed.
    expect(challenges).toEqual([`${stack.url}/api/orgs/acme/forms/quick/challenge`]);
    await page.getByLabel('Your name').fill('Ada');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByText('Got it.').waitFor({ timeout: 30_000 });

    const [stored] = await stack.submissions();
    expect(stored?.form).toBe('quick');
    expect(stored?.spam).toBe(false);
    expect(stored?.answers).toEqual({ name: 'Ada' });
    // The solution went in the body (kept raw) but is not kept among the submit fields.
    const body = JSON.parse(stored?.body ?? '{}') as { submitFields: Record<string, string> };
    expect(typeof body.submitFields.altcha).toBe('string');
    expect(stored?.submitFields).toEqual({ _gotcha: '' });
    await page.close();
  });

  it('a send that failed (server down) is tried again and still arrives as not spam', async () => {
    const definitionUrl = `${stack.url}/api/orgs/acme/forms/quick/definition`;
    const page = await context.newPage();
    await page.goto(site.page('/pow-retry', embedPage(`${stack.url}/runtime.js`, definitionUrl)));
    await page.getByRole('heading', { name: 'Quick question' }).waitFor();
    await page.getByLabel('Your name').fill('Grace');
    await stack.stop();
    try {
      await page.getByRole('button', { name: 'Send' }).click();
      await page.getByText('could not be sent because of a network or server problem').waitFor({
        timeout: 30_000,
      });
    } finally {
      await stack.restart();
    }
    await page.getByRole('button', { name: 'Try again' }).click();
    await page.getByText('Got it.').waitFor({ timeout: 30_000 });
    const stored = (await stack.submissions()).find((r) => r.answers.name === 'Grace');
    expect(stored?.spam).toBe(false);
    await page.close();
  });

  it('solves without SubtleCrypto on a page served over plain http (no secure context)', async () => {
    // A name that is not loopback to the browser, resolved to the loopback site: an http page
    // there is not a secure context, so it has no crypto.subtle and the runtime's own SHA-256
    // does the work.
    const insecure = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: [...CHROMIUM_ARGS, '--host-resolver-rules=MAP plain-http.test 127.0.0.1'],
    });
    try {
      const port = new URL(site.origin).port;
      const origin = `http://plain-http.test:${port}`;
      await stack.api('PATCH', '/api/orgs/acme/forms/quick', {
        allowedOrigins: [site.origin, origin],
      });
      const definitionUrl = `${stack.url}/api/orgs/acme/forms/quick/definition`;
      site.page('/pow-insecure', embedPage(`${stack.url}/runtime.js`, definitionUrl));
      const page = await insecure.newPage();
      await page.goto(`${origin}/pow-insecure`);
      expect(await page.evaluate(() => [isSecureContext, typeof crypto.subtle])).toEqual([
        false,
        'undefined',
      ]);
      await page.getByRole('heading', { name: 'Quick question' }).waitFor();
      await page.getByLabel('Your name').fill('Plain http');
      await page.getByRole('button', { name: 'Send' }).click();
      await page.getByText('Got it.').waitFor({ timeout: 30_000 });
      const stored = (await stack.submissions()).find((r) => r.answers.name === 'Plain http');
      expect(stored?.spam).toBe(false);
    } finally {
      await insecure.close();
    }
  });

  it('a honeypot form asks for no challenge', async () => {
    const page = await context.newPage();
    const challenges: string[] = [];
    page.on('request', (r) => {
      if (r.url().endsWith('/challenge')) challenges.push(r.url());
    });
    await page.goto(site.page('/plain', embedPage(`${stack.url}/runtime.js`, stack.definitionUrl)));
    await page.getByRole('heading', { name: 'Contact us' }).waitFor();
    expect(challenges).toEqual([]);
    await page.close();
  });
});
