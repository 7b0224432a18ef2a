// Every shipped locale has its own words for every runtime text (docs/forms-web.md#languages):
// a text added in English only would show English in the middle of a Danish form.
import { RUNTIME_LOCALES, RUNTIME_TEXTS } from '@havn/forms/runtime-texts';
import { describe, expect, it } from 'vitest';
import type { LocaleTexts } from './texts.js';

// The locale files register themselves on `window` as they do in a browser.
const registry: { havnLocales?: Record<string, LocaleTexts> } = {};
Object.assign(globalThis, { window: registry });

describe('shipped locales', () => {
  it.each(RUNTIME_LOCALES)('%s has a text for every runtime text', async (code) => {
    await import(`./locales/${code}.ts`);
    const texts = registry.havnLocales?.[code] ?? {};
    // `_one` forms are optional: a language whose plural rules never pick "one" (or that writes
    // both alike) falls back to the plain text.
    const keys = Object.keys(RUNTIME_TEXTS).filter((key) => !key.endsWith('_one'));
    expect(keys.filter((key) => !(key in texts))).toEqual([]);
  });
});
