// csv and tsv output. Both carry the JSON values of a row (untruncated), with every text cell made
// safe for terminals and spreadsheets (safe-text.ts). docs/cli.md#output describes both.
import type { Row } from '../upstream/coerce.js';
import { spreadsheetText } from './safe-text.js';
import type { RowView } from './view.js';

// RFC 4180: a header line, CRLF line ends, fields with a comma, quote or line break quoted.
export function csv(view: RowView, rows: readonly Row[]): string {
  const lines = [view.fields.map((f) => csvField(spreadsheetText(f)))];
  for (const row of rows) {
    const json = view.json(row);
    lines.push(view.fields.map((f) => csvField(cellText(json[f]))));
  }
  return lines.map((cells) => `${cells.join(',')}\r\n`).join('');
}

// As `az … -o tsv`: no header line and no quoting, so `cut -f` and `read` work; a tab inside a
// value (the separator) becomes a space. Line ends are LF.
export function tsv(view: RowView, rows: readonly Row[]): string {
  return rows
    .map((row) => {
      const json = view.json(row);
      return `${view.fields.map((f) => cellText(json[f]).replace(/\t/g, ' ')).join('\t')}\n`;
    })
    .join('');
}

/** A value as one delimited cell: null empty, numbers and booleans as is, text made safe. */
function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return spreadsheetText(typeof value === 'string' ? value : JSON.stringify(value));
}

function csvField(text: string): string {
  return /[",\r\n]|^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
