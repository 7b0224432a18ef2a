// Rows that arrive over time (--follow): table output cannot grow a bordered table, so each row
// is one line of its table cells, as `aws logs tail` does; CSV prints its header once
// (streamHeader), the other formats are streams already. Json cannot stream: the commands refuse
// it with --follow (docs/cli.md#follow).
import type { Row } from '../upstream/coerce.js';
import { csv } from './delimited.js';
import type { OutputFormat } from './format.js';
import { renderRows } from './render-rows.js';
import { stripControls } from './safe-text.js';
import { paint } from './text.js';
import type { RowView } from './view.js';

/** What is printed before the first row: the CSV header, nothing otherwise. */
export function streamHeader(format: OutputFormat, view: RowView): string {
  return format === 'csv' ? csv(view, []) : '';
}

export function streamRows(
  format: OutputFormat,
  view: RowView,
  rows: readonly Row[],
  color: boolean,
): string {
  if (rows.length === 0) return '';
  if (format === 'csv') return csv(view, rows).split('\r\n').slice(1).join('\r\n');
  if (format !== 'table') return renderRows(format, view, rows, color);
  return rows
    .map((row) => {
      const cells = view.columns.map((c) => {
        const cell = c.cell(row);
        return paint(stripControls(cell.text).replace(/\t/g, ' '), cell.tint, color);
      });
      return `${cells.join('  ')}\n`;
    })
    .join('');
}
