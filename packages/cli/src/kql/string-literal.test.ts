import { describe, expect, it } from 'vitest';
import { UsageError } from '../errors.js';
import { kqlString } from './string-literal.js';

describe('kqlString', () => {
  it.each([
    ['plain', "'plain'"],
    ["it's", "'it\\'s'"],
    ['back\\slash', "'back\\\\slash'"],
    ["\\'", "'\\\\\\''"],
    ['"double"', `'"double"'`],
  ])('%s → %s', (value, literal) => {
    expect(kqlString(value, '--x')).toBe(literal);
  });

  it('refuses control characters, naming the option', () => {
    expect(() => kqlString('a\nb', '--trace-id')).toThrow(
      new UsageError('--trace-id must not contain control characters.'),
    );
  });
});
