// Validation exactly as the definition says (docs/definition-format.md, "By type"). The runtime
// validates itself instead of using the browser's bubbles so that every message is plain text tied
// to its control with aria-describedby, read by screen readers and styled like the form.
import type { AnswerValue, Question } from './definition.js';

/** What a control holds: text for inputs, the checked values for a choice, a flag for consent. */
export type RawValue = string | string[] | boolean;

// A deliberately plain check: something@something.something, no spaces. The server stores the text
// as typed; this only catches slips such as a missing @ or domain.
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function isEmpty(raw: RawValue): boolean {
  if (typeof raw === 'boolean') return !raw;
  if (Array.isArray(raw)) return raw.length === 0;
  return raw.trim() === '';
}

function lengthError(text: string, min?: number, max?: number): string | null {
  // Counted in code points, as JSON Schema's maxLength counts them.
  const n = Array.from(text).length;
  if (min !== undefined && n < min) return `Use at least ${plural(min, 'character')}.`;
  if (max !== undefined && n > max) return `Use at most ${plural(max, 'character')}.`;
  return null;
}

/**
 * The error message for `raw`, or null when it is valid. `badInput` is the browser's flag for a
 * number or date control holding text it cannot parse (its value then reads as empty).
 */
export function validateAnswer(q: Question, raw: RawValue, badInput = false): string | null {
  if (badInput) return q.type === 'date' ? 'Enter a date as YYYY-MM-DD.' : 'Enter a number.';
  if (isEmpty(raw)) {
    if (!q.required) return null;
    if (q.type === 'consent') return 'Tick this box to continue.';
    if (q.type === 'choice')
      return q.multiple ? 'Choose at least one option.' : 'Choose an option.';
    return 'This field is required.';
  }
  switch (q.type) {
    case 'text': {
      const text = String(raw);
      const bad = lengthError(text, q.minLength, q.maxLength);
      if (bad) return bad;
      // The pattern matches the whole value, as the HTML pattern attribute does.
      if (q.pattern !== undefined && !safeRegExp(q.pattern).test(text)) {
        return 'Use the expected format.';
      }
      return null;
    }
    case 'email': {
      const text = String(raw).trim();
      if (!EMAIL.test(text)) return 'Enter an email address like name@example.com.';
      return lengthError(text, undefined, q.maxLength);
    }
    case 'textarea':
      return lengthError(String(raw), q.minLength, q.maxLength);
    case 'number': {
      const n = Number(raw);
      if (!Number.isFinite(n)) return 'Enter a number.';
      if (q.min !== undefined && n < q.min) return `Enter a number of at least ${q.min}.`;
      if (q.max !== undefined && n > q.max) return `Enter a number of at most ${q.max}.`;
      if (q.step !== undefined && q.step > 0) {
        const base = q.min ?? 0;
        const steps = (n - base) / q.step;
        if (Math.abs(steps - Math.round(steps)) > 1e-9) {
          return `Enter a number in steps of ${q.step}${q.min !== undefined ? ` from ${q.min}` : ''}.`;
        }
      }
      return null;
    }
    case 'date': {
      const text = String(raw);
      if (!DATE.test(text)) return 'Enter a date as YYYY-MM-DD.';
      // ISO dates compare correctly as strings.
      if (q.min !== undefined && text < q.min) return `Choose a date on or after ${q.min}.`;
      if (q.max !== undefined && text > q.max) return `Choose a date on or before ${q.max}.`;
      return null;
    }
    case 'choice': {
      const picked = Array.isArray(raw) ? raw : [String(raw)];
      if (q.minSelected !== undefined && picked.length < q.minSelected) {
        return `Choose at least ${plural(q.minSelected, 'option')}.`;
      }
      if (q.maxSelected !== undefined && picked.length > q.maxSelected) {
        return `Choose at most ${plural(q.maxSelected, 'option')}.`;
      }
      return null;
    }
    case 'consent':
      return null;
  }
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
export function toAnswer(q: Question, raw: RawValue): AnswerValue | undefined {
  if (q.type === 'consent') return raw === true;
  if (isEmpty(raw)) return undefined;
  if (q.type === 'number') return Number(raw);
  if (q.type === 'choice') return q.multiple ? raw : String(raw);
  return String(raw);
}
