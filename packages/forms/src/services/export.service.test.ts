import { expect, test } from 'vitest';
import { owaspPayloads } from '../test-support/owasp-csv-payloads.js';
import { csvCell } from './export.service.js';

/** The cell's text as a spreadsheet reads it back (RFC 4180 unquoting). */
function unquoted(cell: string): string {
  return cell.startsWith('"') ? cell.slice(1, -1).replace(/""/g, '"') : cell;
}

test('every OWASP payload is defused, alone, in an array at any position, and as other types', () => {
  for (const payload of owaspPayloads) {
    expect(unquoted(csvCell(payload))).toBe(`'${payload}`);
    const joined = unquoted(csvCell(['fine', payload]));
    expect(joined).toBe(`fine; '${payload}`);
    expect(unquoted(csvCell([payload, 'fine']))).toBe(`'${payload}; fine`);
    // A `;` (the join, or one inside the payload) is always within quotes, so an importer that
    // splits on `;` keeps the cell whole.
    expect(csvCell(['fine', payload])).toMatch(/^"/);
  }
  // An object or boolean is written as JSON; none starts a formula, whatever it holds.
  expect(csvCell({ a: '=1' })).toBe('"{""a"":""=1""}"');
  expect(csvCell(true)).toBe('true');
  expect(csvCell(-5)).toBe('-5'); // a number is data, not a formula
  expect(csvCell(null)).toBe('');
  expect(csvCell('a;b')).toBe('"a;b"');
});
