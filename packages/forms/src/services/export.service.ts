import type { FormStore } from '../store/forms.store.js';
import { choiceLabels, labelled, type ChoiceLabels } from '../store/choice-labels.js';
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
  options: {
    formColumn?: boolean;
    /** The option labels of a record's definition version, to write choices as labels. */
    labelsOf?: (r: SubmissionRecord) => ChoiceLabels;
  } = {},
): AsyncGenerator<string> {
  const fixed = options.formColumn
    ? (['id', 'form', ...fixedColumns.slice(1)] as const)
    : fixedColumns;
  yield csvLine([...fixed, ...columns, ...metadataColumns]);
  for await (const r of records) {
    const labels = options.labelsOf?.(r);
    yield csvLine([
      ...fixed.map((c) => r[c]),
      ...columns.map((c) => (labels ? labelled(labels, c, r.answers[c]) : r.answers[c])),
      ...metadataColumns.map((c) => r[c]),
    ]);
  }
}

/** The JSON export: an array of records (without the raw body), streamed element by element. */
export async function* jsonExport(
  records: AsyncIterable<SubmissionRecord>,
  labelsOf?: (r: SubmissionRecord) => ChoiceLabels,
): AsyncGenerator<string> {
  yield '[';
  let first = true;
  for await (const r of records) {
    const { body: _body, ...rest } = r;
    if (labelsOf) {
      const labels = labelsOf(r);
      rest.answers = Object.fromEntries(
        Object.entries(r.answers).map(([k, v]) => [k, labelled(labels, k, v)]),
      );
    }
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
  choices?: 'values' | 'labels' | undefined;
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
    const definitions = await this.forms.allDefinitions(org, form);
    const labelsOf = request.choices === 'labels' ? await this.labelLookup(org, [form]) : undefined;
    const lines =
      format === 'csv'
        ? csvExport(answerColumns(definitions), records, labelsOf ? { labelsOf } : {})
        : jsonExport(records, labelsOf);
    return { format, lines };
  }

  /** Each record's choice labels, from the definition version it was made against. */
  private async labelLookup(
    org: string,
    forms: string[],
  ): Promise<(r: SubmissionRecord) => ChoiceLabels> {
    const byVersion = new Map<string, ChoiceLabels>();
    for (const form of forms) {
      for (const d of await this.forms.allDefinitions(org, form)) {
        byVersion.set(`${form}\n${String(d.version)}`, choiceLabels(d.definition));
      }
    }
    return (r) => byVersion.get(`${r.form}\n${String(r.definitionVersion)}`) ?? {};
  }

  /** Every form's submissions in one file; the CSV has a `form` column. */
  async ofOrg(org: string, request: ExportRequest): Promise<Export> {
    const range = exportRange(request.since, request.until);
    const format = request.format ?? 'csv';
    const records = this.submissions.all(org, undefined, range);
    const formIds = (await this.forms.list(org)).map((f) => f.id);
    const labelsOf =
      request.choices === 'labels' ? await this.labelLookup(org, formIds) : undefined;
    if (format === 'json') return { format, lines: jsonExport(records, labelsOf) };
    const perForm: string[][] = [];
    for (const id of formIds) perForm.push(answerColumns(await this.forms.allDefinitions(org, id)));
    return {
      format,
      lines: csvExport(orgAnswerColumns(perForm), records, {
        formColumn: true,
        ...(labelsOf ? { labelsOf } : {}),
      }),
    };
  }
}
