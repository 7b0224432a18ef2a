// The runtime in the form's language (docs/forms-web.md#languages), in real Chromium against the
// real forms server: a Danish form's own words, a definition's override, and Arabic right to left.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations } from '../test-support/axe.js';
import { launchBrowser } from '../test-support/browser.js';
import { ensureBuilt } from '../test-support/build.js';
import { embedPage, type Site, startSite } from '../test-support/site.js';
import { type Stack, startStack } from '../test-support/stack.js';

const questions = [
  { logicalName: 'name', type: 'text', label: 'Navn', required: true },
  { logicalName: 'seats', type: 'number', label: 'Pladser', max: 1000 },
  { logicalName: 'terms', type: 'consent', label: 'Jeg accepterer vilkårene', required: true },
];

let browser: Browser;
let site: Site;
let stack: Stack;

beforeAll(async () => {
  ensureBuilt();
  site = await startSite('localhost');
  stack = await startStack([site.origin]);
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser.close();
  await site.close();
  await stack.close();
});

async function open(definition: object, heading: string): Promise<Page> {
  await stack.putContactForm([site.origin], definition);
  // An English browser: the form's language comes from its definition, not the visitor's.
  const context = await browser.newContext({ locale: 'en-US' });
  const page = await context.newPage();
  await page.goto(site.page('/form', embedPage(`${stack.url}/runtime.js`, stack.definitionUrl)));
  await page.getByRole('heading', { name: heading }).waitFor();
  return page;
}

describe('the runtime in the form language', () => {
  it('speaks Danish for a da form, takes a decimal comma, and lets the definition override a text', async () => {
    const page = await open(
      {
        intro: { title: 'Tilmelding' },
        questions,
        locale: 'da',
        texts: { thanks: 'Tak! Vi ses.' },
      },
      'Tilmelding',
    );
    expect(await page.locator('.form').getAttribute('lang')).toBe('da');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByRole('alert').getByText('2 svar skal rettes.').waitFor();
    expect(await page.locator('#q0-error').textContent()).toBe('Feltet skal udfyldes.');
    expect(await page.locator('#q2-error').textContent()).toBe(
      'Sæt kryds i feltet for at fortsætte.',
    );
    await page.getByLabel('Pladser').fill('1500,5');
    await page.getByRole('button', { name: 'Send' }).click();
    expect(await page.locator('#q1-error').textContent()).toBe('Skriv et tal på højst 1.000.');
    await page.getByLabel('Navn').fill('Søren');
    await page.getByLabel('Pladser').fill('12,5');
    await page.getByLabel('Jeg accepterer vilkårene').check();
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByText('Tak! Vi ses.').waitFor();
    expect(JSON.parse((await stack.submissions())[0]!.body)).toMatchObject({
      name: 'Søren',
      seats: 12.5,
      terms: true,
    });
    await page.context().close();
  });

  it('lays an ar form out right to left, in Arabic', async () => {
    const page = await open(
      {
        intro: { title: 'التسجيل' },
        questions: [{ logicalName: 'name', type: 'text', label: 'الاسم', required: true }],
        locale: 'ar',
      },
      'التسجيل',
    );
    const form = page.locator('.form');
    expect(await form.getAttribute('dir')).toBe('rtl');
    expect(await form.getAttribute('lang')).toBe('ar');
    expect(await page.getByLabel('الاسم').evaluate((e) => getComputedStyle(e).direction)).toBe(
      'rtl',
    );
    await page.getByRole('button', { name: 'إرسال' }).click();
    expect(await page.locator('#q0-error').textContent()).toBe('هذا الحقل مطلوب.');
    // Right to left: the label starts at the form's right edge.
    const [label, box] = await Promise.all([
      page.locator('label[for=q0]').boundingBox(),
      form.boundingBox(),
    ]);
    expect(Math.abs(label!.x + label!.width - (box!.x + box!.width))).toBeLessThan(2);
    expect(await axeViolations(page)).toEqual([]);
    await page.context().close();
  });
});
