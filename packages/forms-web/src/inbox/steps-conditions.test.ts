// Steps and conditions in the visual builder (docs/forms-web.md#steps-and-conditions), in real
// Chromium against the real forms server, by clicks and keys alone, on a desktop and at 390×844:
// the form split into two named steps, questions moved between them (by their Step list and by
// Move up/down past a step's edge), a condition "only when <question> is <answer>" picked from the
// other question's options, a problem named by its question when the condition would name a later
// one, the live preview following steps and condition, the JSON in step both ways (a renamed
// question's name followed by its step and condition), a step added and removed, and the save.
import type { BrowserContextOptions } from 'playwright-core';
import { expect, it } from 'vitest';
import { axeViolations } from '../test-support/axe.js';
import { PHONE } from '../test-support/browser.js';
import { dragOntoCardAbove } from '../test-support/builder-drag.js';
import { inboxUnderTest } from '../test-support/inbox.js';

const inbox = inboxUnderTest();
const openInbox = (options: BrowserContextOptions) => inbox.openInbox(options);

interface Definition {
  questions: { logicalName: string; showIf?: unknown }[];
  pages?: { title?: string; questions: string[] }[];
}

async function stepsAndConditions(name: string, options: BrowserContextOptions): Promise<void> {
  const page = await openInbox(options);
  const preview = page.frameLocator('iframe[title="Preview of the form"]');
  const card = (heading: string) =>
    page.locator('.builder-card').filter({ has: page.getByRole('heading', { name: heading }) });
  const fits = async () => {
    expect(await axeViolations(page)).toEqual([]);
    expect(
      await page.evaluate(
        (width) => document.documentElement.scrollWidth <= width,
        page.viewportSize()?.width ?? 0,
      ),
    ).toBe(true);
  };

  await page.getByRole('link', { name: 'Forms', exact: true }).click();
  await page.getByRole('link', { name: 'New form' }).click();
  await page.getByLabel('Name', { exact: true }).fill(name);
  const id = await page.getByLabel('Form id').inputValue();
  await page.getByRole('button', { name: 'Create form' }).click();
  await page.getByRole('tab', { name: 'Builder', selected: true }).waitFor();

  // The starter's "Your name" and "Email", then a choice and a text question.
  const addType = page.getByLabel('New question type');
  await addType.selectOption('choice');
  await page.getByRole('button', { name: 'Add question' }).click();
  await page.locator('#b-q2-label').fill('Signing up for');
  await page.getByLabel('Option 1', { exact: true }).fill('A business');
  await page.getByLabel('Option 2', { exact: true }).fill('Myself');
  await addType.selectOption('text');
  await page.getByRole('button', { name: 'Add question' }).click();
  await page.locator('#b-q3-label').fill('Company name');

  // Two steps: "You" (name, signing up for) and "Details" (email, company).
  await page.getByRole('button', { name: 'Split into steps' }).click();
  await page.getByLabel('Step 1 title').fill('You');
  await page.getByRole('button', { name: 'Add step' }).click();
  await page.getByLabel('Step 2 title').fill('Details');
  await card('Question 2 (Email)')
    .getByLabel('Step', { exact: true })
    .selectOption('Step 2 (Details)');
  // The list follows the steps: Email is now last.
  await card('Question 4 (Email)').waitFor();
  await card('Question 3 (Company name)')
    .getByLabel('Step', { exact: true })
    .selectOption('Step 2 (Details)');
  await card('Question 4 (Company name)')
    .locator('.builder-card-head')
    .getByText('Step 2 (Details)')
    .waitFor();
  const headings = async () =>
    (await page.locator('.builder-card h3').allInnerTexts()).map((t) => t.replace(/^\W+/, ''));
  expect(await headings()).toEqual([
    'Question 1 (Your name)',
    'Question 2 (Signing up for)',
    'Question 3 (Email)',
    'Question 4 (Company name)',
  ]);

  // By keyboard: the last question of step 1 moved down joins step 2 first, and back up again.
  await page.getByRole('button', { name: 'Move down: Question 2 (Signing up for)' }).focus();
  await page.keyboard.press('Enter');
  await card('Question 2 (Signing up for)')
    .locator('.builder-card-head')
    .getByText('Step 2 (Details)')
    .waitFor();
  await page
    .getByRole('status')
    .filter({ hasText: 'Signing up for moved to position 2 of 4, Step 2 (Details).' })
    .waitFor();
  expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(
    'Move down: Question 2 (Signing up for)',
  );
  await page.getByRole('button', { name: 'Move up: Question 2 (Signing up for)' }).click();
  await card('Question 2 (Signing up for)')
    .locator('.builder-card-head')
    .getByText('Step 1 (You)')
    .waitFor();
  expect(
    await page.getByRole('button', { name: 'Move up: Question 1 (Your name)' }).isDisabled(),
  ).toBe(true);

  // Company name only when "Signing up for" is "A business", picked from its options.
  const company = card('Question 4 (Company name)');
  await company.getByLabel('Show this question').selectOption('Only when an earlier answer is…');
  await company.getByLabel('When the answer to').selectOption('Question 2 (Signing up for)');
  await company.getByLabel('Is or is not').selectOption('is');
  await company.getByLabel('Answer', { exact: true }).selectOption('A business');
  expect(
    await company.getByLabel('Answer', { exact: true }).locator('option').allInnerTexts(),
  ).toEqual(['A business', 'Myself']);
  await page.getByText('No problems found.').waitFor();
  await fits();

  // The preview, once it shows this draft: step by step, the company question only for a
  // business.
  await page.locator('.preview[aria-busy="false"]').waitFor();
  await preview.getByText('Step 1 of 2: You').waitFor();
  await preview.getByRole('textbox', { name: 'Your name' }).fill('Ada');
  await preview.getByRole('radio', { name: 'Myself' }).check();
  await preview.getByRole('button', { name: 'Next' }).click();
  await preview.getByText('Step 2 of 2: Details').waitFor();
  expect(await preview.getByRole('textbox', { name: 'Company name' }).count()).toBe(0);
  await preview.getByRole('button', { name: 'Back' }).click();
  await preview.getByRole('radio', { name: 'A business' }).check();
  await preview.getByRole('button', { name: 'Next' }).click();
  await preview.getByRole('textbox', { name: 'Company name' }).waitFor();

  // A condition may name only earlier questions: moved above its question, it is a problem
  // named by the question, under its card and in the summary; moved back, it is fine again.
  await page.getByRole('button', { name: 'Move up: Question 4 (Company name)' }).click();
  await page.getByRole('button', { name: 'Move up: Question 3 (Company name)' }).click();
  await page.getByRole('button', { name: 'Move up: Question 3 (Company name)' }).click();
  await card('Question 2 (Company name)')
    .locator('.builder-card-head')
    .getByText('Step 1 (You)')
    .waitFor();
  await card('Question 2 (Company name)')
    .locator('.builder-problems')
    .getByText(
      'Question 2 (Company name), condition: "signing-up-for" is not an earlier question; a condition may only name questions shown before it',
    )
    .waitFor();
  await page.getByText('1 problem:').waitFor();
  await page.getByRole('button', { name: 'Move down: Question 2 (Company name)' }).click();
  await page.getByRole('button', { name: 'Move down: Question 3 (Company name)' }).click();
  await page.getByRole('button', { name: 'Move down: Question 3 (Company name)' }).click();
  await card('Question 4 (Company name)')
    .locator('.builder-card-head')
    .getByText('Step 2 (Details)')
    .waitFor();
  await page.getByText('No problems found.').waitFor();

  // Dragged with the mouse onto a card of the step before, a question joins that step; two
  // Move downs take it back.
  if (!options.isMobile) {
    await dragOntoCardAbove(page, 2);
    await card('Question 2 (Email)')
      .locator('.builder-card-head')
      .getByText('Step 1 (You)')
      .waitFor();
    await page.getByRole('button', { name: 'Move down: Question 2 (Email)' }).click();
    await page.getByRole('button', { name: 'Move down: Question 3 (Email)' }).click();
    await card('Question 3 (Email)')
      .locator('.builder-card-head')
      .getByText('Step 2 (Details)')
      .waitFor();
  }

  // A third step, empty: a problem named by the step; removed, it is gone.
  await page.getByRole('button', { name: 'Add step' }).click();
  await page
    .locator('.builder-problems')
    .getByText(/^Step 3, questions: /)
    .waitFor();
  await page.getByRole('button', { name: 'Remove Step 3' }).click();
  await page.getByText('No problems found.').waitFor();

  // The JSON holds the same; renaming the question renames its step entry and the condition.
  await page.locator('#b-q1-label').fill('Signing up as');
  await page.getByRole('tab', { name: 'Advanced (JSON)' }).click();
  const editor = page.getByLabel('Definition (JSON)');
  const json = JSON.parse(await editor.inputValue()) as Definition;
  expect(json.pages).toEqual([
    { title: 'You', questions: ['name', 'signing-up-as'] },
    { title: 'Details', questions: ['email', 'company-name'] },
  ]);
  expect(json.questions.map((q) => q.logicalName)).toEqual([
    'name',
    'signing-up-as',
    'email',
    'company-name',
  ]);
  expect(json.questions[3]?.showIf).toEqual({ question: 'signing-up-as', equals: 'a-business' });
  // ...and an edit there shows in the builder.
  await editor.fill(
    (await editor.inputValue()).replace('"equals": "a-business"', '"notEquals": "myself"'),
  );
  await page.getByRole('tab', { name: 'Builder' }).click();
  expect(await company.getByLabel('Is or is not').inputValue()).toBe('notEquals');
  expect(await company.getByLabel('Answer', { exact: true }).inputValue()).toBe('myself');
  await fits();

  await page.getByRole('button', { name: 'Save definition' }).click();
  await page.getByRole('status').getByText('Saved as version 1.').waitFor();
  const saved = await inbox.stack.api<{ definition: Definition }>(
    'GET',
    `/api/orgs/acme/forms/${id}`,
  );
  expect(saved.definition.pages?.map((p) => p.title)).toEqual(['You', 'Details']);
  expect(saved.definition.questions[3]?.showIf).toEqual({
    question: 'signing-up-as',
    notEquals: 'myself',
  });
  await page.close();
}

it('splits a form into steps and gives a question a condition, by clicks alone, on a desktop', async () => {
  await stepsAndConditions('Sign up', {});
}, 120_000);

it('the same at 390×844 in dark mode', async () => {
  await stepsAndConditions('Sign up on a phone', { ...PHONE, colorScheme: 'dark' });
}, 120_000);
