// The visual form builder and the inbox's rough edges (docs/forms-web.md#the-definition-editor), in real
// Chromium against the real forms server, by clicks and keys: a form built without JSON (a text,
// an email and a multiple-choice question with three options; one reordered by keyboard, one
// duplicated then deleted), the JSON kept in step both ways, problems named by question, the
// preview reset after Send; then choice labels in the feed, read and unread, mark all read,
// delete with confirmation and the CSV with labels.
import { readFileSync } from 'node:fs';
import type { BrowserContextOptions, Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { axeViolations } from '../test-support/axe.js';
import { PHONE } from '../test-support/browser.js';
import { dragOntoCardAbove } from '../test-support/builder-drag.js';
import { inboxUnderTest } from '../test-support/inbox.js';

const SITE = 'http://site.test';
const inbox = inboxUnderTest(() => [SITE]);
const openInbox = (options: BrowserContextOptions = {}) =>
  inbox.openInbox({ acceptDownloads: true, ...options });

const preview = (page: Page) => page.frameLocator('iframe[title="Preview of the form"]');

interface Saved {
  definition: {
    questions: { logicalName: string; type: string; label: string; options?: unknown }[];
  };
}

it('builds a form without JSON: add, reorder by keyboard, duplicate, delete; JSON in step both ways; problems by name', async () => {
  const page = await openInbox();
  await page.getByRole('link', { name: 'Forms', exact: true }).click();
  await page.getByRole('link', { name: 'New form' }).click();
  await page.getByLabel('Name', { exact: true }).fill('Sales enquiry');
  await page.getByRole('button', { name: 'Create form' }).click();
  await page.getByRole('tab', { name: 'Builder', selected: true }).waitFor();

  // The format guide is a real link: it opens the guide, served beside the inbox.
  const [guide] = await Promise.all([
    page.waitForEvent('popup'),
    page.getByRole('link', { name: 'definition format guide' }).click(),
  ]);
  await guide.getByText('# Form definition format').waitFor();
  await guide.close();

  // The starter has "Your name" and "Email"; delete both, then build from nothing but clicks.
  await page.getByRole('button', { name: 'Delete Question 2 (Email)' }).click();
  await page.getByRole('button', { name: 'Delete Question 1 (Your name)' }).click();
  const addType = page.getByLabel('New question type');
  const add = page.getByRole('button', { name: 'Add question' });
  await addType.selectOption('text');
  await add.click();
  await page.getByLabel('Question', { exact: true }).fill('Full name');
  await addType.selectOption('choice');
  await add.click();
  await page.locator('#b-q1-label').fill('Company size');
  await page.getByLabel('Option 1', { exact: true }).fill('1 to 10');
  await page.getByLabel('Option 2', { exact: true }).fill('11 to 50');
  await page.getByRole('button', { name: 'Add option' }).first().click();
  await page.getByLabel('Option 3', { exact: true }).fill('51 or more');
  expect(await page.locator('#b-q1-o1-value').inputValue()).toBe('11-to-50');
  await addType.selectOption('email');
  await add.click();
  await page.locator('#b-q2-label').fill('Work email');
  await page.locator('#b-q2-required').check();

  // Reorder by keyboard: the email question up, before the choice.
  await page.getByRole('button', { name: 'Move up: Question 3 (Work email)' }).focus();
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'Question 2 (Work email)' }).waitFor();
  // Focus stays with the moved question's button.
  expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(
    'Move up: Question 2 (Work email)',
  );
  await page
    .getByRole('status')
    .filter({ hasText: 'Work email moved to position 2 of 3.' })
    .waitFor();

  // Duplicate, then delete the copy.
  await page.getByRole('button', { name: 'Duplicate Question 1 (Full name)' }).click();
  await page.getByRole('heading', { name: 'Question 2 (Full name (copy))' }).waitFor();
  await page.getByRole('button', { name: 'Delete Question 2 (Full name (copy))' }).click();
  expect(await page.locator('.builder-card').count()).toBe(3);

  // A problem is named by its question, under it and in the summary.
  await page.locator('#b-q1-label').fill('');
  await page
    .locator('.builder-problems')
    .getByText('Question 2 (work-email), label: must not be empty')
    .waitFor();
  await page.locator('#b-q1-label').fill('Work email');
  await page.getByText('No problems found.').waitFor();

  // The preview follows; the JSON holds the same draft, and an edit there shows in the builder.
  await preview(page).getByRole('textbox', { name: 'Work email' }).waitFor();
  await preview(page).getByRole('radio', { name: '11 to 50' }).waitFor();
  await page.getByRole('tab', { name: 'Advanced (JSON)' }).click();
  const json = JSON.parse(
    await page.getByLabel('Definition (JSON)').inputValue(),
  ) as Saved['definition'];
  expect(json.questions.map((q) => [q.logicalName, q.type])).toEqual([
    ['full-name', 'text'],
    ['work-email', 'email'],
    ['company-size', 'choice'],
  ]);
  await page
    .getByLabel('Definition (JSON)')
    .fill(JSON.stringify(json, null, 2).replace('"Full name"', '"Your full name"'));
  await page.getByRole('tab', { name: 'Builder' }).click();
  expect(await page.locator('#b-q0-label').inputValue()).toBe('Your full name');
  expect(await axeViolations(page)).toEqual([]);

  await page.getByRole('button', { name: 'Save definition' }).click();
  await page.getByRole('status').getByText('Saved as version 1.').waitFor();
  const saved = await inbox.stack.api<Saved>('GET', '/api/orgs/acme/forms/sales-enquiry');
  expect(saved.definition.questions.map((q) => q.label)).toEqual([
    'Your full name',
    'Work email',
    'Company size',
  ]);
  expect(saved.definition.questions[2]?.options).toEqual([
    { value: '1-to-10', label: '1 to 10' },
    { value: '11-to-50', label: '11 to 50' },
    { value: '51-or-more', label: '51 or more' },
  ]);

  // Send in the preview, then Reset brings the form back.
  await preview(page).getByRole('textbox', { name: 'Your full name' }).fill('Ada');
  await preview(page).getByRole('textbox', { name: 'Work email' }).fill('ada@example.com');
  await preview(page).getByRole('button', { name: 'Send' }).click();
  await preview(page).getByText('Thank you!').waitFor();
  await page.getByRole('button', { name: 'Reset preview' }).click();
  await preview(page).getByRole('textbox', { name: 'Your full name' }).waitFor();
  await page.close();
});

it('adds a file question with its types and limits and drags it first; the JSON holds it as the format says', async () => {
  const page = await openInbox();
  await page.goto(`${inbox.stack.url}/#/forms/sales-enquiry/settings/definition`);
  await page.getByLabel('New question type').selectOption('file');
  await page.getByRole('button', { name: 'Add question' }).click();
  await page.locator('#b-q3-label').fill('Your CV');
  await page.locator('#b-q3-accept').fill('application/pdf, .docx');
  await page.locator('#b-q3-maxFiles').fill('2');
  await page.getByText('No problems found.').waitFor();
  // Dragged with the mouse by its heading onto the card above it, three times over, it becomes
  // the first question.
  for (const place of [3, 2, 1]) {
    await dragOntoCardAbove(page, place);
    await page.getByRole('heading', { name: `Question ${String(place)} (Your CV)` }).waitFor();
  }
  await page.getByRole('tab', { name: 'Advanced (JSON)' }).click();
  const json = JSON.parse(await page.getByLabel('Definition (JSON)').inputValue()) as {
    questions: unknown[];
  };
  expect(json.questions[0]).toEqual({
    type: 'file',
    label: 'Your CV',
    logicalName: 'your-cv',
    accept: ['application/pdf', '.docx'],
    maxFiles: 2,
  });
  await page.close();
});

it('works at 390×844 in dark mode with no axe violation and no sideways scrolling', async () => {
  const page = await openInbox({ ...PHONE, colorScheme: 'dark' });
  await page.goto(`${inbox.stack.url}/#/forms/sales-enquiry/settings/definition`);
  await page.getByRole('heading', { name: 'Question 3 (Company size)' }).waitFor();
  expect(
    await page.evaluate(
      (width) => document.documentElement.scrollWidth <= width,
      page.viewportSize()?.width ?? 0,
    ),
  ).toBe(true);
  expect(await axeViolations(page)).toEqual([]);
  await page.close();
});

it('shows choice labels, marks read and unread, marks all read, deletes after asking, exports labels', async () => {
  await inbox.stack.api('PATCH', '/api/orgs/acme/forms/sales-enquiry', { allowedOrigins: [SITE] });
  const post = async (answers: object) => {
    const res = await fetch(`${inbox.stack.url}/api/orgs/acme/forms/sales-enquiry/submissions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: SITE },
      body: JSON.stringify(answers),
    });
    expect(res.status).toBe(200);
  };
  await post({
    'full-name': 'Grace',
    'work-email': 'grace@example.com',
    'company-size': '51-or-more',
  });
  await post({ 'full-name': 'Ada', 'work-email': 'ada@example.com', 'company-size': '11-to-50' });
  const page = await openInbox();
  await page.goto(`${inbox.stack.url}/#/forms/sales-enquiry`);
  const main = page.locator('#main');
  const rows = page.locator('ul.feed > li');
  await rows.first().getByText('Ada · ada@example.com · 11 to 50').waitFor();
  await main.getByText('2 unread').waitFor();

  await page.getByRole('button', { name: /^Mark read: Ada/ }).click();
  await main.getByText('1 unread').waitFor();
  await page.getByRole('button', { name: /^Mark unread: Ada/ }).click();
  await main.getByText('2 unread').waitFor();
  await page.getByRole('button', { name: 'Mark all read' }).click();
  await main.getByText('All read').waitFor();
  await page.getByRole('status').getByText('Marked 2 submissions read.').waitFor();

  // Export with labels.
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export CSV with labels' }).click();
  const csv = readFileSync(await (await download).path(), 'utf8');
  expect(csv).toContain(',11 to 50,');
  expect(csv).not.toContain('11-to-50');

  // Delete asks first; Cancel keeps it; Delete for good erases it.
  await rows.first().getByRole('link').click();
  await page.getByRole('button', { name: 'Delete…' }).click();
  await page.getByRole('button', { name: 'Cancel' }).click();
  await page.getByRole('button', { name: 'Delete…' }).click();
  // The question has the focus, and keeps it when the page reloads its data.
  const confirm = page.getByRole('button', { name: 'Delete for good' });
  await expect.poll(() => confirm.evaluate((el) => el === document.activeElement)).toBe(true);
  await page.keyboard.press('Tab');
  const reloaded = page.waitForResponse(
    (r) => r.request().method() === 'GET' && r.url().includes('/submissions/sub_'),
  );
  await page.evaluate(() => dispatchEvent(new Event('havn:refresh')));
  await reloaded;
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(r)));
  expect(
    await page
      .getByRole('button', { name: 'Cancel' })
      .evaluate((el) => el === document.activeElement),
  ).toBe(true);
  expect(await axeViolations(page)).toEqual([]);
  await page.getByRole('button', { name: 'Delete for good' }).click();
  await page.getByRole('heading', { name: 'Sales enquiry' }).waitFor();
  await expect.poll(() => rows.count()).toBe(1);
  expect(await rows.first().textContent()).toContain('Grace');
  await page.close();
});
