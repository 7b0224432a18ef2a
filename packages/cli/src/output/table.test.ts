import { describe, expect, it } from 'vitest';
import { renderTable } from './table.js';
import { displayWidth, oneLine, truncate } from './text.js';

describe('text', () => {
  it('truncates to the given number of characters, ellipsis included', () => {
    expect(truncate('abcdef', 4)).toBe('abc…');
    expect(truncate('abcd', 4)).toBe('abcd');
    // Never half of a surrogate pair.
    expect(truncate('😀😀😀', 2)).toBe('😀…');
  });

  it('keeps a row on one line and measures wide characters', () => {
    expect(oneLine('a\r\n  b\tc')).toBe('a b c');
    expect(displayWidth('日本')).toBe(4);
    expect(displayWidth('abc')).toBe(3);
  });
});

describe('renderTable', () => {
  const columns = [{ header: 'Name' }, { header: 'N', align: 'right' as const }];
  const rows = [
    [{ text: '日本' }, { text: '1' }],
    [{ text: 'ok', tint: 'green' as const }, { text: '100' }],
  ];

  it('draws rounded borders with aligned columns', () => {
    expect(renderTable(columns, rows, false)).toBe(
      [
        '╭──────┬─────╮',
        '│ Name │   N │',
        '├──────┼─────┤',
        '│ 日本 │   1 │',
        '│ ok   │ 100 │',
        '╰──────┴─────╯',
        '',
      ].join('\n'),
    );
  });

  it('colours only when asked', () => {
    const coloured = renderTable(columns, rows, true);
    expect(coloured).toContain('\u001b[32mok\u001b[39m');
    expect(renderTable(columns, rows, false)).not.toContain('\u001b[');
  });
});
