// The runtime's words in the form's language (docs/forms-web.md#languages): English is built in;
// another shipped locale is loaded on demand from beside runtime.js (dist/locales/<code>.js, a
// script, so it needs no CORS and a host page's CSP treats it as it treats runtime.js), and the
// definition's `texts` override any single text. Numbers and dates in messages are formatted,
// and number answers parsed, for the locale.
import { RUNTIME_LOCALES, RUNTIME_TEXTS, type RuntimeTextKey } from '@havn/forms/runtime-texts';

export type LocaleTexts = Partial<Record<RuntimeTextKey, string>>;

declare global {
  interface Window {
    havnLocales?: Record<string, LocaleTexts>;
  }
}

const RTL = ['ar', 'fa', 'he', 'ur'];

export class Texts {
  readonly lang: string;
  readonly dir: 'ltr' | 'rtl';
  private readonly plurals: Intl.PluralRules;
  private readonly decimal: string;

  constructor(
    locale = 'en',
    private readonly texts: LocaleTexts = {},
  ) {
    let lang = 'en';
    try {
      lang = Intl.getCanonicalLocales(locale)[0] ?? 'en';
    } catch {
      // not a BCP 47 tag: English
    }
    this.lang = lang;
    this.dir = RTL.includes(lang.split('-')[0] ?? '') ? 'rtl' : 'ltr';
    this.plurals = new Intl.PluralRules(lang);
    this.decimal =
      new Intl.NumberFormat(lang).formatToParts(1.5).find((p) => p.type === 'decimal')?.value ??
      '.';
  }

  /** The text `key` with its `{slots}` filled; numbers formatted, `_one` chosen by plural rules. */
  t(key: RuntimeTextKey, slots: Record<string, string | number> = {}): string {
    const n = slots.n;
    const one =
      typeof n === 'number' && this.plurals.select(n) === 'one'
        ? this.pick(`${key}_one` as RuntimeTextKey)
        : undefined;
    const text = one ?? this.pick(key) ?? key;
    return text.replace(/\{(\w+)\}/g, (_, name: string) => {
      const v = slots[name];
      return typeof v === 'number' ? this.num(v) : (v ?? '');
    });
  }

  private pick(key: RuntimeTextKey): string | undefined {
    return this.texts[key] ?? (RUNTIME_TEXTS as Partial<Record<string, string>>)[key];
  }

  num(n: number): string {
    return new Intl.NumberFormat(this.lang, { maximumFractionDigits: 20 }).format(n);
  }

  /** An ISO `YYYY-MM-DD` date as the locale writes it. */
  date(iso: string): string {
    const d = new Date(`${iso}T00:00:00Z`);
    if (Number.isNaN(d.getTime())) return iso;
    return new Intl.DateTimeFormat(this.lang, { dateStyle: 'long', timeZone: 'UTC' }).format(d);
  }

  /** A typed number as the locale writes it (its decimal sign, or a point; Arabic-Indic digits too). */
  parseNumber(text: string): number {
    let s = text
      .trim()
      .replace(/[\u0660-\u0669]/g, (c) => String(c.charCodeAt(0) - 0x660))
      .replace(/\u066b/g, '.');
    if (this.decimal === ',') s = s.replace(',', '.');
    return /^[+-]?(\d+\.?\d*|\.\d+)$/.test(s) ? Number(s) : NaN;
  }
}

/** The shipped locale for `locale` (its language when the region is not shipped), or none. */
function shipped(locale: string): string | undefined {
  const lower = locale.toLowerCase();
  return RUNTIME_LOCALES.find((l) => lower === l || lower.startsWith(`${l}-`));
}

/**
 * The texts of `locale`, loaded from beside `runtimeUrl` when they are not built in, with the
 * definition's own overrides on top. A locale that cannot be loaded falls back to English.
 */
export async function loadTexts(
  locale: string | undefined,
  overrides: LocaleTexts | undefined,
  runtimeUrl: string,
): Promise<Texts> {
  const code = locale ? shipped(locale) : undefined;
  if (code && !window.havnLocales?.[code]) {
    await new Promise((resolve) => {
      const script = document.createElement('script');
      script.src = new URL(`locales/${code}.js`, runtimeUrl).href;
      script.onload = script.onerror = resolve;
      document.head.append(script);
    });
  }
  return new Texts(locale, { ...(code ? window.havnLocales?.[code] : {}), ...overrides });
}
