// Writes rows in the chosen format. Json/jsonl/csv write data to stdout and nothing else: no
// colour, no truncation, no notes (spec 3 §4.1 "no markup").
import type { Row } from '../upstream/coerce.js';
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
      return `${JSON.stringify(rows.map((r) => view.json(r)))}\n`;
    case 'jsonl':
      return rows.map((r) => `${JSON.stringify(view.json(r))}\n`).join('');
    case 'csv':
      return csv(view, rows);
    case 'table':
      return renderTable(
        view.columns,
        rows.map((r) => view.columns.map((c) => c.cell(r))),
        color,
      );
  }
}

// RFC 4180: CRLF line ends, fields with a comma, quote or line break are quoted, quotes doubled.
function csv(view: RowView, rows: readonly Row[]): string {
  const lines = [view.fields.map(csvField)];
  for (const row of rows) {
    const json = view.json(row);
    lines.push(view.fields.map((f) => csvField(json[f])));
  }
  return lines.map((cells) => `${cells.join(',')}\r\n`).join('');
}

function csvField(value: unknown): string {
  const text =
    value === null || value === undefined
      ? ''
      : typeof value === 'string'
        ? value
        : typeof value === 'number' || typeof value === 'boolean'
          ? String(value)
          : JSON.stringify(value);
  return /[",\r\n]|^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
