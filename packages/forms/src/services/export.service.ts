import type { SubmissionRecord } from '../store/submissions.store.js';

const fixedColumns = ['id', 'receivedAt', 'read', 'spam', 'definitionVersion'] as const;
const metadataColumns = ['origin', 'referer', 'userAgent', 'ip'] as const;

/**
 * One column per logicalName across every definition version (issue 6): the newest version's
 * order first, then names only older versions had, oldest last.
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

/** RFC 4180 quoting; a text cell that a spreadsheet would run as a formula gets a leading '. */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  let text: string;
  if (Array.isArray(value)) text = value.map(String).join('; ');
  else if (typeof value === 'string') text = value;
  else text = JSON.stringify(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function csvLine(cells: unknown[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}

/** The CSV export, a line at a time. */
export async function* csvExport(
  columns: string[],
  records: AsyncIterable<SubmissionRecord>,
): AsyncGenerator<string> {
  yield csvLine([...fixedColumns, ...columns, ...metadataColumns]);
  for await (const r of records) {
    yield csvLine([
      ...fixedColumns.map((c) => r[c]),
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
