// The validation rules of docs/definition-format.md and the answers the runtime sends for them.
import { describe, expect, it } from 'vitest';
import type { Question } from './definition.js';
import { Texts } from './texts.js';
import { toAnswer, validateAnswer } from './validate.js';

// A question of the given type with the given extra fields (the server validated the shape).
const q = (question: { type: Question['type'] } & Record<string, unknown>): Question =>
  ({ logicalName: 'x', label: 'X', ...question }) as Question;

describe('validateAnswer', () => {
  it('requires what is required, per type, and lets optional questions stay empty', () => {
    expect(validateAnswer(q({ type: 'text', required: true }), '   ')).toBe(
      'This field is required.',
    );
    expect(validateAnswer(q({ type: 'text' }), '')).toBeNull();
    expect(validateAnswer(q({ type: 'consent', required: true }), false)).toBe(
      'Tick this box to continue.',
    );
    const options = [{ value: 'a', label: 'A' }];
    expect(validateAnswer(q({ type: 'choice', required: true, options }), '')).toBe(
      'Choose an option.',
    );
    expect(validateAnswer(q({ type: 'choice', required: true, multiple: true, options }), [])).toBe(
      'Choose at least one option.',
    );
  });

  it('checks lengths in code points and patterns against the whole value', () => {
    const text = q({ type: 'text', minLength: 2, maxLength: 3, pattern: '[a-z]+' });
    expect(validateAnswer(text, 'a')).toBe('Use at least 2 characters.');
    expect(validateAnswer(text, 'abcd')).toBe('Use at most 3 characters.');
    expect(validateAnswer(text, 'ab1')).toBe('Use the expected format.');
    expect(validateAnswer(text, 'abc')).toBeNull();
    // Three emoji are three characters, not six UTF-16 units.
    expect(validateAnswer(q({ type: 'textarea', maxLength: 3 }), '😀😀😀')).toBeNull();
    expect(validateAnswer(q({ type: 'text', maxLength: 1 }), 'ab')).toBe(
      'Use at most 1 character.',
    );
  });

  it('never locks people out over a pattern the browser cannot compile', () => {
    expect(validateAnswer(q({ type: 'text', pattern: '([' }), 'anything')).toBeNull();
  });

  it('checks email, number bounds and steps, dates and selection counts', () => {
    expect(validateAnswer(q({ type: 'email' }), 'ada@example')).toBe(
      'Enter an email address like name@example.com.',
    );
    expect(validateAnswer(q({ type: 'email' }), 'ada@example.com')).toBeNull();
    const seats = q({ type: 'number', min: 1, max: 10, step: 2 });
    expect(validateAnswer(seats, '0')).toBe('Enter a number of at least 1.');
    expect(validateAnswer(seats, '11')).toBe('Enter a number of at most 10.');
    expect(validateAnswer(seats, '4')).toBe('Enter a number in steps of 2 from 1.');
    expect(validateAnswer(seats, '5')).toBeNull();
    expect(validateAnswer(q({ type: 'number', step: 0.1 }), '0.3')).toBeNull();
    expect(validateAnswer(seats, '', true)).toBe('Enter a number.');
    const date = q({ type: 'date', min: '2026-01-01', max: '2026-12-31' });
    expect(validateAnswer(date, '2025-12-31')).toBe('Choose a date on or after January 1, 2026.');
    expect(validateAnswer(date, '2027-01-01')).toBe(
      'Choose a date on or before December 31, 2026.',
    );
    expect(validateAnswer(date, '2026-06-01')).toBeNull();
    const options = ['a', 'b', 'c'].map((v) => ({ value: v, label: v }));
    const pick = q({ type: 'choice', multiple: true, minSelected: 2, maxSelected: 2, options });
    expect(validateAnswer(pick, ['a'])).toBe('Choose at least 2 options.');
    expect(validateAnswer(pick, ['a', 'b', 'c'])).toBe('Choose at most 2 options.');
    expect(validateAnswer(pick, ['a', 'b'])).toBeNull();
  });
});

describe('toAnswer', () => {
  it('omits unanswered questions and types the rest as the submission body wants', () => {
    expect(toAnswer(q({ type: 'text' }), '')).toBeUndefined();
    expect(toAnswer(q({ type: 'number' }), '12.5')).toBe(12.5);
    expect(toAnswer(q({ type: 'consent' }), false)).toBe(false);
    const options = [{ value: 'a', label: 'A' }];
    expect(toAnswer(q({ type: 'choice', options }), 'a')).toBe('a');
    expect(toAnswer(q({ type: 'choice', multiple: true, options }), ['a'])).toEqual(['a']);
    expect(toAnswer(q({ type: 'choice', multiple: true, options }), [])).toBeUndefined();
  });
});

describe('in another language', () => {
  // The Danish texts as the locale file registers them, and one override as a definition gives it.
  const da = new Texts('da', {
    required: 'Feltet skal udfyldes.',
    numberMax: 'Skriv et tal på højst {n}.',
    dateMin: 'Vælg en dato den {date} eller senere.',
    minLength: 'Skriv mindst {n} tegn.',
  });

  it('says it in the locale, with numbers and dates written the locale way', () => {
    expect(validateAnswer(q({ type: 'text', required: true }), '', false, da)).toBe(
      'Feltet skal udfyldes.',
    );
    expect(validateAnswer(q({ type: 'number', max: 1500.5 }), '2000', false, da)).toBe(
      'Skriv et tal på højst 1.500,5.',
    );
    expect(validateAnswer(q({ type: 'date', min: '2026-03-01' }), '2026-01-01', false, da)).toBe(
      'Vælg en dato den 1. marts 2026 eller senere.',
    );
    // A text the locale does not translate falls back to English.
    expect(validateAnswer(q({ type: 'text', pattern: 'a' }), 'b', false, da)).toBe(
      'Use the expected format.',
    );
  });

  it('parses numbers with the locale decimal sign (and a point), and refuses the rest', () => {
    const n = q({ type: 'number' });
    expect(toAnswer(n, '12,5', da)).toBe(12.5);
    expect(toAnswer(n, '12.5', da)).toBe(12.5);
    expect(validateAnswer(n, '12,5', false, da)).toBeNull();
    expect(validateAnswer(n, '12,5')).toBe('Enter a number.'); // English has no decimal comma
    expect(toAnswer(n, '١٢', new Texts('ar'))).toBe(12);
  });

  it('picks the singular with the locale plural rules', () => {
    expect(new Texts('en').t('invalid', { n: 1 })).toBe('1 answer needs attention.');
    expect(new Texts('en').t('invalid', { n: 3 })).toBe('3 answers need attention.');
    expect(new Texts('ar').dir).toBe('rtl');
    expect(new Texts('da-DK').dir).toBe('ltr');
  });
});
