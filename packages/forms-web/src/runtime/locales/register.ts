// A locale file (built to dist/locales/<code>.js) hands its texts to the runtime that loaded it
// (docs/forms-web.md#languages).
import type { LocaleTexts } from '../texts.js';

export function registerLocale(code: string, texts: LocaleTexts): void {
  (window.havnLocales ??= {})[code] = texts;
}
