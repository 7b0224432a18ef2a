import { describe, expect, it } from 'vitest';
import { ESCAPE_CORPUS } from '../test-support/escape-corpus.js';
import { spreadsheetText, stripControls } from './safe-text.js';

// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/;

describe('stripControls', () => {
  it.each(ESCAPE_CORPUS.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const out = stripControls(c.raw);
    expect(out).toBe(c.shown);
    expect(out).not.toMatch(UNSAFE);
  });

  it('keeps tabs, wide characters and emoji', () => {
    expect(stripControls('a\tb 日本 😀')).toBe('a\tb 日本 😀');
  });
});

describe('spreadsheetText', () => {
  it.each([
    ['=HYPERLINK("https://evil.test","x")', `'=HYPERLINK("https://evil.test","x")`],
    ['+1', "'+1"],
    ['-2+3', "'-2+3"],
    ['@SUM(A1:A9)', "'@SUM(A1:A9)"],
    ['\t=1', "'\t=1"],
    ['\r=1', "' =1"],
    ['\u001b[31m=1', "'=1"],
    ['plain = fine', 'plain = fine'],
    ['', ''],
  ])('%j → %j', (raw, cell) => {
    expect(spreadsheetText(raw)).toBe(cell);
  });
});
