import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import { applyStorageState, type StorageState } from './storage-state.js';

// A state the browser refuses fails with the browser's reason, for the service log, and no cookie
// value of the state in it: whatever Chromium's message quotes, a value it holds is blanked.

let browser: Browser;

beforeAll(async () => {
  const { chromiumPath } = loadConfig({ PATH: process.env.PATH, ALLOW_ANONYMOUS: '1' });
  browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'] });
});

afterAll(async () => {
  await browser.close();
});

it('says why a state was refused, with every cookie value in the reason blanked', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const cookie = { domain: 'crm.test', path: '/', expires: -1, httpOnly: true, secure: false };
  const state: StorageState = {
    // Chromium refuses the first (a `;` in a value); the second's value is the very command its
    // message names, so an unblanked reason would carry it.
    cookies: [
      { ...cookie, name: 'bad', value: 'a;b', sameSite: 'Lax' },
      { ...cookie, name: 'sid', value: 'Storage.setCookies', sameSite: 'Lax' },
    ],
    origins: [],
  };
  const refused = await applyStorageState(context, page, state).then(
    () => undefined,
    (err: unknown) => (err as Error).message,
  );
  expect(refused).toMatch(/^the browser could not apply the saved state: .*Invalid cookie fields/);
  expect(refused).toContain('<cookie>');
  expect(refused).not.toContain('Storage.setCookies');
  await context.close();
});
