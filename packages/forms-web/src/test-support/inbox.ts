// The inbox under test, for a UI test file: the real forms stack and Chromium started before the
// file's tests and stopped after them, and sign-in done as a person does it.
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { launchBrowser } from './browser.js';
import { ensureBuilt } from './build.js';
import { type Stack, startStack } from './stack.js';

export interface InboxUnderTest {
  readonly browser: Browser;
  readonly stack: Stack;
  /** A page in a context of its own (closed with the page), signed in with the stack's token. */
  openInbox(options?: BrowserContextOptions): Promise<Page>;
}

/** Fills the sign-in screen at the inbox's address and presses Sign in (it does not wait after). */
export async function signIn(
  page: Page,
  stack: Pick<Stack, 'url' | 'org'>,
  token: string,
): Promise<void> {
  await page.goto(stack.url);
  await page.getByLabel('Organisation', { exact: true }).fill(stack.org);
  await page.getByLabel('Organisation token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/**
 * Registers the file's hooks: builds if needed, starts the stack allowing `origins` (read when the
 * hooks run, so an earlier hook may start the site they name) and Chromium, and stops both after.
 */
export function inboxUnderTest(origins: () => readonly string[] = () => []): InboxUnderTest {
  let browser: Browser | undefined;
  let stack: Stack | undefined;
  beforeAll(async () => {
    ensureBuilt();
    stack = await startStack([...origins()]);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });
  const started = <T>(part: T | undefined): T => {
    if (part === undefined) throw new Error('the inbox under test starts in beforeAll');
    return part;
  };
  return {
    get browser() {
      return started(browser);
    },
    get stack() {
      return started(stack);
    },
    async openInbox(options = {}) {
      const context = await started(browser).newContext(options);
      const page = await context.newPage();
      page.on('close', () => {
        context.close().catch(() => undefined); // the browser may be closing already
      });
      await signIn(page, started(stack), started(stack).token);
      await page.getByRole('link', { name: 'Forms', exact: true }).waitFor();
      return page;
    },
  };
}
