// Resumable answers (docs/forms-web.md#resumable-answers) in real Chromium against the real forms
// server: typed answers survive a reload, a sensitive answer never reaches localStorage, Clear
// empties them, and a successful send leaves nothing behind.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../test-support/browser.js';
import { ensureBuilt } from '../test-support/build.js';
import { embedPage, type Site, startSite } from '../test-support/site.js';
import { type Stack, startStack } from '../test-support/stack.js';

const DEFINITION = {
  intro: { title: 'Apply' },
  questions: [
    { logicalName: 'name', type: 'text', label: 'Your name', required: true },
    {
      logicalName: 'role',
      type: 'choice',
      label: 'Role',
      multiple: true,
      options: [
        { value: 'dev', label: 'Developer' },
        { value: 'ops', label: 'Operations' },
      ],
    },
    { logicalName: 'ssn', type: 'text', label: 'Personal number', sensitive: true },
    { logicalName: 'about', type: 'textarea', label: 'About you' },
    { logicalName: 'terms', type: 'consent', label: 'I agree to the terms', required: true },
  ],
  pages: [{ questions: ['name', 'role', 'ssn'] }, { questions: ['about', 'terms'] }],
  thanks: 'Application received.',
};

let browser: Browser;
let site: Site;
let stack: Stack;
let context: BrowserContext;

beforeAll(async () => {
  ensureBuilt();
  site = await startSite('localhost');
  stack = await startStack([site.origin]);
  await stack.putContactForm([site.origin], DEFINITION);
  browser = await launchBrowser();
  context = await browser.newContext();
});

afterAll(async () => {
  await browser.close();
  await site.close();
  await stack.close();
});

async function open(): Promise<Page> {
  const page = await context.newPage();
  await page.goto(site.page('/apply', embedPage(`${stack.url}/runtime.js`, stack.definitionUrl)));
  await page.getByRole('heading', { name: 'Apply' }).waitFor();
  return page;
}

/** Everything the host page's localStorage holds, as one string. */
function storage(page: Page): Promise<string> {
  return page.evaluate(() => {
    const all: Record<string, string | null> = {};
    for (let i = 0; i < localStorage.length; i++) {
      const key = localStorage.key(i) ?? '';
      all[key] = localStorage.getItem(key);
    }
    return JSON.stringify(all);
  });
}

describe('resumable answers', () => {
  it('come back after a reload, never hold a sensitive answer, and are gone after Send', async () => {
    const page = await open();
    await page.getByLabel('Your name').fill('Katherine Johnson');
    await page.getByLabel('Operations').check();
    await page.getByLabel('Personal number').fill('010203-4567');
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByLabel('About you').fill('Orbital mechanics.');
    const kept = await storage(page);
    expect(kept).toContain('Katherine Johnson');
    expect(kept).toContain('Orbital mechanics.');
    expect(kept).not.toContain('010203-4567');

    await page.reload();
    // Back on the step the person was on, with its answer.
    await page.getByRole('heading', { name: 'Step 2 of 2' }).waitFor();
    expect(await page.getByLabel('About you').inputValue()).toBe('Orbital mechanics.');
    await page.getByRole('button', { name: 'Back' }).click();
    expect(await page.getByLabel('Your name').inputValue()).toBe('Katherine Johnson');
    expect(await page.getByLabel('Operations').isChecked()).toBe(true);
    expect(await page.getByLabel('Developer').isChecked()).toBe(false);
    expect(await page.getByLabel('Personal number').inputValue()).toBe('');
    expect(await storage(page)).not.toContain('010203-4567');

    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByLabel('I agree to the terms').check();
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByText('Application received.').waitFor();
    expect(JSON.parse((await stack.submissions())[0]!.body)).toMatchObject({
      name: 'Katherine Johnson',
      role: ['ops'],
      about: 'Orbital mechanics.',
    });
    expect(await storage(page)).toBe('{}');
    await page.reload();
    await page.getByRole('heading', { name: 'Apply' }).waitFor();
    expect(await page.getByLabel('Your name').inputValue()).toBe('');
    await page.close();
  });

  it('Clear empties the answers and the stored draft', async () => {
    const page = await open();
    await page.getByLabel('Your name').fill('Mary Jackson');
    await page.reload();
    await page.getByRole('heading', { name: 'Apply' }).waitFor();
    expect(await page.getByLabel('Your name').inputValue()).toBe('Mary Jackson');
    await page.getByRole('button', { name: 'Clear answers' }).click();
    expect(await page.getByLabel('Your name').inputValue()).toBe('');
    expect(await storage(page)).toBe('{}');
    await page.reload();
    await page.getByRole('heading', { name: 'Apply' }).waitFor();
    expect(await page.getByLabel('Your name').inputValue()).toBe('');
    await page.close();
  });
});
