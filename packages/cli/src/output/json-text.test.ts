import { describe, expect, it } from 'vitest';
import { jsonText } from './json-text.js';

describe('jsonText', () => {
  const value = {
    del: 'a\u007fb',
    c1: '\u0080\u0085\u009b2J\u009d0;t\u0007\u009f',
    separators: 'l\u2028s\u2029p',
    c0: 'n\nt\tz\u0000',
    plain: 'café 日本 😀',
    nested: [{ 'k\u2028': 1 }],
  };

  it('escapes DEL, C1 and U+2028/2029, leaving no raw one', () => {
    const text = jsonText(value);
    // eslint-disable-next-line no-control-regex
    expect(text).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
    expect(text).toContain('a\\u007fb');
    expect(text).toContain('\\u0080\\u0085\\u009b2J\\u009d0;t\\u0007\\u009f');
    expect(text).toContain('l\\u2028s\\u2029p');
    expect(text).toContain('café 日本 😀');
  });

  it('stays exact JSON: a parser reads the same values', () => {
    expect(JSON.parse(jsonText(value))).toEqual(value);
    expect(jsonText([1, 'x', null, true])).toBe(JSON.stringify([1, 'x', null, true]));
  });
});
