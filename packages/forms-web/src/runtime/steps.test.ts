// Steps and conditions in the runtime (docs/definition-format.md#steps-and-conditions), in real
// Chromium against the real forms server: a three-step form whose second step depends on the
// first, walked with the keyboard alone.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations } from '../test-support/axe.js';
import { launchBrowser } from '../test-support/browser.js';
import { ensureBuilt } from '../test-support/build.js';
import { embedPage, type Site, startSite } from '../test-support/site.js';
import { type Stack, startStack } from '../test-support/stack.js';

const STEPS_DEFINITION = {
  intro: { title: 'Sign up' },
  questions: [
    {
      logicalName: 'kind',
      type: 'choice',
      label: 'Who are you signing up for?',
      required: true,
      options: [
        { value: 'business', label: 'A business' },
        { value: 'private', label: 'Myself' },
      ],
    },
    { logicalName: 'company', type: 'text', label: 'Company name', required: true },
    {
      logicalName: 'size',
      type: 'number',
      label: 'Company size',
      showIf: { question: 'company', answered: true },
    },
    { logicalName: 'terms', type: 'consent', label: 'I agree to the terms', required: true },
  ],
  pages: [
    { title: 'You', questions: ['kind'] },
    {
      title: 'Company',
      questions: ['company', 'size'],
      showIf: { question: 'kind', equals: 'business' },
    },
    { title: 'Confirm', questions: ['terms'] },
  ],
  thanks: 'Welcome aboard.',
};

let browser: Browser;
let site: Site;
let stack: Stack;
let context: BrowserContext;

beforeAll(async () => {
  ensureBuilt();
  site = await startSite('localhost');
  stack = await startStack([site.origin]);
  await stack.putContactForm([site.origin], STEPS_DEFINITION);
  browser = await launchBrowser();
  context = await browser.newContext({ locale: 'en-US' });
});

afterAll(async () => {
  await browser.close();
  await site.close();
  await stack.close();
});

async function open(path: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(site.page(path, embedPage(`${stack.url}/runtime.js`, stack.definitionUrl)));
  await page.getByRole('heading', { name: 'Sign up' }).waitFor();
  return page;
}

/** The focused element inside the form's shadow root: its text, or its id for a control. */
function focused(page: Page): Promise<string | undefined> {
  return page.evaluate(() => {
    const e = document.activeElement?.shadowRoot?.activeElement;
    return e?.tagName === 'H3' || e?.tagName === 'BUTTON' ? e.textContent : e?.id;
  });
}

describe('steps and conditions', () => {
  it('walks three steps by keyboard: each step validated, announced and shown only when it applies', async () => {
    const page = await open('/steps');
    const k = page.keyboard;
    // Until the first answer, the company step does not apply.
    await page.getByRole('heading', { name: 'Step 1 of 2: You' }).waitFor();
    expect(await page.getByRole('button', { name: 'Back' }).count()).toBe(0);
    await page.locator('h1').click();
    await k.press('Tab');
    expect(await focused(page)).toBe('q0-0');
    await k.press('Space'); // A business
    await page.getByRole('heading', { name: 'Step 1 of 3: You' }).waitFor();
    await k.press('Tab');
    expect(await focused(page)).toBe('Next');
    await k.press('Enter');
    // The new step's heading takes focus, so a screen reader announces it.
    await expect.poll(() => focused(page)).toBe('Step 2 of 3: Company');
    expect(await page.getByLabel('Company size').isVisible()).toBe(false);
    expect(await axeViolations(page)).toEqual([]);
    await k.press('Tab');
    expect(await focused(page)).toBe('q1');
    await k.press('Enter'); // Next without the required company: refused, focus on the field
    await page.getByRole('alert').getByText('1 answer needs attention.').waitFor();
    expect(await page.locator('#q1-error').textContent()).toBe('This field is required.');
    expect(await focused(page)).toBe('q1');
    await k.type('Acme');
    // The size question depends on the company answer, on the same step.
    await page.getByLabel('Company size').waitFor();
    await k.press('Tab');
    await k.type('12');
    await k.press('Enter');
    await expect.poll(() => focused(page)).toBe('Step 3 of 3: Confirm');
    await k.press('Tab');
    expect(await focused(page)).toBe('q3');
    await k.press('Space');
    await k.press('Tab');
    expect(await focused(page)).toBe('Back');
    await k.press('Tab');
    expect(await focused(page)).toBe('Send');
    await k.press('Enter');
    await page.getByText('Welcome aboard.').waitFor();
    expect(JSON.parse((await stack.submissions())[0]!.body)).toEqual({
      kind: 'business',
      company: 'Acme',
      size: 12,
      terms: true,
      submitFields: { _gotcha: '' },
    });
    await page.close();
  });

  it('skips a step that no longer applies, and sends nothing of it', async () => {
    const page = await open('/skip');
    await page.getByLabel('A business').check();
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByLabel('Company name').fill('Typed then abandoned');
    await page.getByRole('button', { name: 'Back' }).click();
    await expect.poll(() => focused(page)).toBe('Step 1 of 3: You');
    await page.getByLabel('Myself').check();
    await page.getByRole('heading', { name: 'Step 1 of 2: You' }).waitFor();
    await page.getByRole('button', { name: 'Next' }).click();
    await expect.poll(() => focused(page)).toBe('Step 2 of 2: Confirm');
    await page.getByRole('button', { name: 'Send' }).click();
    expect(await page.locator('#q3-error').textContent()).toBe('Tick this box to continue.');
    await page.getByLabel('I agree to the terms').check();
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByText('Welcome aboard.').waitFor();
    const stored = (await stack.submissions())[0]!;
    expect(JSON.parse(stored.body)).toEqual({
      kind: 'private',
      terms: true,
      submitFields: { _gotcha: '' },
    });
    await page.close();
  });
});
