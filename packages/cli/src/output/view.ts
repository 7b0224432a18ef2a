// What a command shows of a row: its table cells and its JSON object. JSON, JSONL and CSV carry
// the whole untruncated value (docs/cli.md#output); only the table truncates.
import type { Row } from '../upstream/coerce.js';
import type { Cell, TableColumn } from './table.js';
import { stripControls } from './safe-text.js';
import { oneLine, truncate } from './text.js';

export interface ViewColumn extends TableColumn {
  cell(row: Row): Cell;
}

export interface RowView {
  /** Plural noun for "No <noun> in the last hour." */
  readonly noun: string;
  /** JSON field names, in order; also the CSV header. */
  readonly fields: readonly string[];
  readonly columns: readonly ViewColumn[];
  json(row: Row): Record<string, unknown>;
}

/** Upstream columns copied as they are (the query API's own names). */
export function pick(row: Row, fields: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of fields) out[field] = row[field] ?? null;
  return out;
}

export function textOf(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** A text cell on one line, cut to `max` characters with an ellipsis (docs/cli.md#output). */
export function shortText(value: unknown, max?: number): Cell {
  // Stripped before cutting, so an escape sequence is never cut in half or counted as text.
  const text = oneLine(stripControls(textOf(value)));
  return { text: max === undefined ? text : truncate(text, max) };
}

/** `2026-11-21T10:24:25.1234567Z` → `2026-11-21 10:24:25` (UTC, as the API sends it). */
export function timeCell(value: unknown): Cell {
  const text = textOf(value);
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})/.exec(text);
  return { text: match ? `${match[1] ?? ''} ${match[2] ?? ''}` : text };
}

export function durationCell(value: unknown): Cell {
  if (typeof value !== 'number') return { text: textOf(value) };
  if (value < 1000)
    return { text: `${value < 10 ? value.toFixed(1) : Math.round(value).toFixed(0)} ms` };
  return { text: `${(value / 1000).toFixed(2)} s` };
}

/** A green check or a red cross derived from success; blank when unknown. */
export function successCell(value: unknown): Cell {
  if (value === true) return { text: '✓', tint: 'green' };
  if (value === false) return { text: '✗', tint: 'red' };
  return { text: '' };
}

/** Operation ids are cut to 16 characters in tables (docs/cli.md#output). */
export const OPERATION_ID_WIDTH = 16;
