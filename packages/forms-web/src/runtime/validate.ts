// Validation exactly as the definition says (docs/definition-format.md, "By type"). The runtime
// validates itself instead of using the browser's bubbles so that every message is plain text tied
// to its control with aria-describedby, read by screen readers and styled like the form.
import type { AnswerValue, Question } from './definition.js';
import { Texts } from './texts.js';

/** What a control holds: text for inputs, the checked values for a choice, a flag for consent. */
export type RawValue = string | string[] | boolean;

// A deliberately plain check: something@something.something, no spaces. The server stores the text
// as typed; this only catches slips such as a missing @ or domain.
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

let english: Texts | undefined;
const en = () => (english ??= new Texts());

function isEmpty(raw: RawValue): boolean {
  if (typeof raw === 'boolean') return !raw;
  if (Array.isArray(raw)) return raw.length === 0;
  return raw.trim() === '';
}

function lengthError(tx: Texts, text: string, min?: number, max?: number): string | null {
  // Counted in code points, as JSON Schema's maxLength counts them.
  const n = Array.from(text).length;
  if (min !== undefined && n < min) return tx.t('minLength', { n: min });
  if (max !== undefined && n > max) return tx.t('maxLength', { n: max });
  return null;
}

/**
 * The error message for `raw`, or null when it is valid. `badInput` is the browser's flag for a
 * number or date control holding text it cannot parse (its value then reads as empty).
 */
export function validateAnswer(
  q: Question,
  raw: RawValue,
  badInput = false,
  tx: Texts = en(),
  /** A `file` question's picked files (their names are `raw`). */
  files: readonly File[] = [],
): string | null {
  if (badInput) return tx.t(q.type === 'date' ? 'date' : 'number');
  if (isEmpty(raw)) {
    if (!q.required) return null;
    if (q.type === 'consent') return tx.t('tick');
    if (q.type === 'choice') return tx.t(q.multiple ? 'chooseSome' : 'chooseOne');
    return tx.t('required');
  }
  switch (q.type) {
    case 'text': {
      const text = String(raw);
      const bad = lengthError(tx, text, q.minLength, q.maxLength);
      if (bad) return bad;
      // The pattern matches the whole value, as the HTML pattern attribute does.
      if (q.pattern !== undefined && !safeRegExp(q.pattern).test(text)) return tx.t('pattern');
      return null;
    }
    case 'email': {
      const text = String(raw).trim();
      if (!EMAIL.test(text)) return tx.t('email');
      return lengthError(tx, text, undefined, q.maxLength);
    }
    case 'textarea':
      return lengthError(tx, String(raw), q.minLength, q.maxLength);
    case 'number': {
      const n = tx.parseNumber(String(raw));
      if (!Number.isFinite(n)) return tx.t('number');
      if (q.min !== undefined && n < q.min) return tx.t('numberMin', { n: q.min });
      if (q.max !== undefined && n > q.max) return tx.t('numberMax', { n: q.max });
      if (q.step !== undefined && q.step > 0) {
        const base = q.min ?? 0;
        const steps = (n - base) / q.step;
        if (Math.abs(steps - Math.round(steps)) > 1e-9) {
          return q.min !== undefined
            ? tx.t('numberStepFrom', { step: q.step, min: q.min })
            : tx.t('numberStep', { step: q.step });
        }
      }
      return null;
    }
    case 'date': {
      const text = String(raw);
      if (!DATE.test(text)) return tx.t('date');
      // ISO dates compare correctly as strings.
      if (q.min !== undefined && text < q.min) return tx.t('dateMin', { date: tx.date(q.min) });
      if (q.max !== undefined && text > q.max) return tx.t('dateMax', { date: tx.date(q.max) });
      return null;
    }
    case 'choice': {
      const picked = Array.isArray(raw) ? raw : [String(raw)];
      if (q.minSelected !== undefined && picked.length < q.minSelected) {
        return tx.t('minSelected', { n: q.minSelected });
      }
      if (q.maxSelected !== undefined && picked.length > q.maxSelected) {
        return tx.t('maxSelected', { n: q.maxSelected });
      }
      return null;
    }
    case 'consent':
      return null;
    case 'file': {
      // The server checks each file's type by its bytes; here only what a person can fix.
      if (files.length > (q.maxFiles ?? 1)) return tx.t('maxFiles', { n: q.maxFiles ?? 1 });
      const big = files.find((f) => q.maxBytes !== undefined && f.size > q.maxBytes);
      return big ? tx.t('fileTooLarge', { name: big.name, size: sizeText(q.maxBytes ?? 0) }) : null;
    }
  }
}

/** A byte count as people read it: 10 MB, 500 KB. */
function sizeText(bytes: number): string {
  return bytes >= 1024 * 1024
    ? `${String(Math.round((bytes / 1024 / 1024) * 10) / 10)} MB`
    : `${String(Math.round(bytes / 1024))} KB`;
}

function safeRegExp(source: string): RegExp {
  try {
    return new RegExp(`^(?:${source})$`, 'u');
  } catch {
    // A pattern the browser cannot compile must not lock people out of the form.
    return /^[\s\S]*$/;
  }
}

/**
 * The value the submission body carries for `raw`, or undefined for an unanswered question, which
 * is omitted (definition-format.md). An unticked consent box is an answer: `false`.
 */
export function toAnswer(q: Question, raw: RawValue, tx: Texts = en()): AnswerValue | undefined {
  if (q.type === 'consent') return raw === true;
  // Files are sent as parts of their own (docs/forms.md#file-uploads), not in the answers.
  if (q.type === 'file' || isEmpty(raw)) return undefined;
  if (q.type === 'number') return tx.parseNumber(String(raw));
  if (q.type === 'choice') return q.multiple ? raw : String(raw);
  return String(raw);
}
