import type { FormStore } from '../store/forms.store.js';
import type { SubmissionRecord, SubmissionStore } from '../store/submissions.store.js';
import { existingForm } from './existing-form.js';
import { fileLabel } from './uploads/file-names.js';
import { exportRange } from './export-range.js';

const fixedColumns = ['id', 'receivedAt', 'read', 'spam', 'definitionVersion'] as const;
const metadataColumns = ['origin', 'referer', 'userAgent', 'ip'] as const;

/**
 * One column per logicalName across every definition version (docs/forms.md#submissions): the
 * newest version's order first, then names only older versions had, oldest last.
 */
export function answerColumns(definitions: { version: number; definition: unknown }[]): string[] {
  const names: string[] = [];
  for (const { definition } of [...definitions].sort((a, b) => b.version - a.version)) {
    const questions = (definition as { questions?: { logicalName?: unknown }[] }).questions ?? [];
    for (const q of questions) {
      if (typeof q.logicalName === 'string' && !names.includes(q.logicalName)) {
        names.push(q.logicalName);
      }
    }
  }
  return names;
}

// OWASP CSV injection: a cell a spreadsheet reads as a formula starts with one of these, possibly
// after spaces some importers trim away.
const formulaStart = /^[ ]*[=+\-@\t\r\n]/;

/** Text that no spreadsheet runs as a formula: a leading ' makes it plain text. */
function defused(text: string): string {
  return formulaStart.test(text) ? `'${text}` : text;
}

/**
 * One CSV cell: RFC 4180 quoting, and defused against formula injection whatever the value's type
 * (docs/forms.md#submissions). Each element of an array is defused before the join too, so an
 * importer that splits on `;` still gets no formula; a cell holding `;` is quoted for the same
 * reason. A finite JSON number is written as it is: its digits cannot be a formula.
 */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  let text: string;
  if (typeof value === 'number' && Number.isFinite(value)) text = String(value);
  else if (Array.isArray(value)) {
    // docs/forms.md#file-uploads: a file by its name and size.
    text = defused(value.map((v) => defused(fileLabel(v) ?? String(v))).join('; '));
  } else if (typeof value === 'string') text = defused(value);
  else text = defused(JSON.stringify(value));
  return /[",;\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function csvLine(cells: unknown[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}

/**
 * The answer columns of an organisation-wide export: each form's (see answerColumns), forms in
 * id order, a name shared by several forms once.
 */
export function orgAnswerColumns(perForm: string[][]): string[] {
  return [...new Set(perForm.flat())];
}

/** The CSV export, a line at a time; an organisation-wide one has a `form` column after `id`. */
export async function* csvExport(
  columns: string[],
  records: AsyncIterable<SubmissionRecord>,
  options: { formColumn?: boolean } = {},
): AsyncGenerator<string> {
  const fixed = options.formColumn
    ? (['id', 'form', ...fixedColumns.slice(1)] as const)
    : fixedColumns;
  yield csvLine([...fixed, ...columns, ...metadataColumns]);
  for await (const r of records) {
    yield csvLine([
      ...fixed.map((c) => r[c]),
      ...columns.map((c) => r.answers[c]),
      ...metadataColumns.map((c) => r[c]),
    ]);
  }
}

/** The JSON export: an array of records (without the raw body), streamed element by element. */
export async function* jsonExport(
  records: AsyncIterable<SubmissionRecord>,
): AsyncGenerator<string> {
  yield '[';
  let first = true;
  for await (const r of records) {
    const { body: _body, ...rest } = r;
    yield `${first ? '' : ','}\n${JSON.stringify(rest)}`;
    first = false;
  }
  yield first ? ']\n' : '\n]\n';
}

export type ExportFormat = 'csv' | 'json';

export interface ExportRequest {
  format?: ExportFormat | undefined;
  since?: string | undefined;
  until?: string | undefined;
}

/** An export's lines, to stream as they come, and the format they are in. */
export interface Export {
  format: ExportFormat;
  lines: AsyncIterable<string>;
}

/** Exports of one form or of a whole organisation (docs/forms.md#submissions). */
export class ExportService {
  constructor(
    private readonly submissions: SubmissionStore,
    private readonly forms: FormStore,
  ) {}

  /** One form's submissions, oldest first; 400 for a bad range, then 404 for no such form. */
  async ofForm(org: string, form: string, request: ExportRequest): Promise<Export> {
    const range = exportRange(request.since, request.until);
    await existingForm(this.forms, org, form);
    const format = request.format ?? 'csv';
    const records = this.submissions.all(org, form, range);
    const lines =
      format === 'csv'
        ? csvExport(answerColumns(await this.forms.allDefinitions(org, form)), records)
        : jsonExport(records);
    return { format, lines };
  }

  /** Every form's submissions in one file; the CSV has a `form` column. */
  async ofOrg(org: string, request: ExportRequest): Promise<Export> {
    const range = exportRange(request.since, request.until);
    const format = request.format ?? 'csv';
    const records = this.submissions.all(org, undefined, range);
    if (format === 'json') return { format, lines: jsonExport(records) };
    const perForm: string[][] = [];
    for (const f of await this.forms.list(org)) {
      perForm.push(answerColumns(await this.forms.allDefinitions(org, f.id)));
    }
    return { format, lines: csvExport(orgAnswerColumns(perForm), records, { formColumn: true }) };
  }
}
