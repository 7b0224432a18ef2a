// Writes rows in the chosen format. Json/jsonl/csv/tsv write data to stdout and nothing else: no
// colour, no truncation, no notes (docs/cli.md#output).
import type { Row } from '../upstream/coerce.js';
import { csv, tsv } from './delimited.js';
import { jsonText } from './json-text.js';
import type { OutputFormat } from './format.js';
import { renderTable } from './table.js';
import type { RowView } from './view.js';

export function renderRows(
  format: OutputFormat,
  view: RowView,
  rows: readonly Row[],
  color: boolean,
): string {
  switch (format) {
    case 'json':
      return `${jsonText(rows.map((r) => view.json(r)))}\n`;
    case 'jsonl':
      return rows.map((r) => `${jsonText(view.json(r))}\n`).join('');
    case 'csv':
      return csv(view, rows);
    case 'tsv':
      return tsv(view, rows);
    case 'table':
      return renderTable(
        view.columns,
        rows.map((r) => view.columns.map((c) => c.cell(r))),
        color,
      );
  }
}
