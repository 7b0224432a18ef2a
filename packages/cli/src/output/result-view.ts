// The view of a result whose columns the user chose (`havn otel query`): one table column per
// result column, shaped by its type; JSON keys are the column names, values as coerced.
import type { Column } from '../upstream/coerce.js';
import { pick, shortText, timeCell, type RowView, type ViewColumn } from './view.js';

/** Wide enough for a message to be useful, narrow enough for a few columns to fit a terminal. */
const CELL_MAX = 80;
const NUMERIC = new Set(['int', 'long', 'real', 'double', 'decimal', 'float']);

export function resultView(columns: readonly Column[]): RowView {
  const fields = columns.map((c) => c.name);
  return {
    noun: 'rows',
    fields,
    columns: columns.map((c): ViewColumn => {
      if (c.type === 'datetime') return { header: c.name, cell: (r) => timeCell(r[c.name]) };
      if (NUMERIC.has(c.type) || c.type === 'timespan') {
        return { header: c.name, align: 'right', cell: (r) => shortText(r[c.name], CELL_MAX) };
      }
      return { header: c.name, cell: (r) => shortText(r[c.name], CELL_MAX) };
    }),
    json: (r) => pick(r, fields),
  };
}
