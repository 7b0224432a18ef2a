import type { Insertable } from 'kysely';
import type { SubmissionTable } from './schema.js';

/** The PostgreSQL type an inserted column's array parameter is cast to. */
export type PgArrayType = 'text' | 'int4' | 'int8' | 'bytea';

// Each inserted column with the PostgreSQL type its array parameter is cast to; text converts to
// the varchar columns on insert.
const submissionTypes = {
  id: 'text',
  orgSlug: 'text',
  formId: 'text',
  receivedAt: 'text',
  read: 'int4',
  spam: 'int4',
  preview: 'text',
  answers: 'text',
  submitFields: 'text',
  origin: 'text',
  referer: 'text',
  userAgent: 'text',
  ip: 'text',
  definitionVersion: 'int4',
  body: 'bytea',
  files: 'text',
} as const satisfies Record<keyof SubmissionTable, PgArrayType>;

const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * `insert into <table> (…) select * from unnest($n::type[], …)`: one array parameter per column,
 * appended to `parameters`. The text is the same whatever the number of rows, so neither Kysely
 * nor PostgreSQL builds or parses a statement that grows with a group commit's batch (a 256-row
 * VALUES list cost as much as serving the requests).
 */
export function unnestInsert(
  table: string,
  types: Readonly<Record<string, PgArrayType>>,
  rows: readonly object[],
  parameters: unknown[],
): string {
  const columns = Object.keys(types);
  const casts = columns.map((c) => {
    parameters.push(rows.map((r) => (r as Record<string, unknown>)[c] ?? null));
    return `$${String(parameters.length)}::${types[c] ?? 'text'}[]`;
  });
  return `insert into ${table} (${columns.map(snake).join(', ')}) select * from unnest(${casts.join(', ')})`;
}

/** A group commit's submissions as one `unnest` insert (its parameters go to `parameters`). */
export function insertSubmissions(
  submissions: readonly Insertable<SubmissionTable>[],
  parameters: unknown[],
): string {
  return unnestInsert('submissions', submissionTypes, submissions, parameters);
}
