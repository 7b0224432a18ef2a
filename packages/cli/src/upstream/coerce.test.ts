import { describe, expect, it } from 'vitest';
import { coerce, primaryTable } from './coerce.js';

describe('coerce (the query API sends typed values as strings)', () => {
  it.each([
    ['3', 'int', 3],
    [3, 'long', 3],
    ['12.5', 'real', 12.5],
    ['', 'real', null],
    ['NaN', 'real', null],
    ['True', 'bool', true],
    ['false', 'boolean', false],
    [1, 'bool', true],
    ['{"a":[1,2]}', 'dynamic', { a: [1, 2] }],
    ['not json', 'dynamic', 'not json'],
    ['2026-11-21T10:00:00Z', 'datetime', '2026-11-21T10:00:00Z'],
    [null, 'int', null],
  ])('%j as %s is %j', (value, type, expected) => {
    expect(coerce(value, type)).toEqual(expected);
  });

  it('zips PrimaryResult rows with their columns, missing cells as null', () => {
    const answer = {
      tables: [
        {
          name: 'PrimaryResult',
          columns: [
            { name: 'n', type: 'int' },
            { name: 'ok', type: 'bool' },
          ],
          rows: [['1', 'True'], ['2']],
        },
      ],
    };
    expect(primaryTable(answer).rows).toEqual([
      { n: 1, ok: true },
      { n: 2, ok: null },
    ]);
    expect(primaryTable({}).rows).toEqual([]);
  });
});
