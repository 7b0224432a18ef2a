import { CompiledQuery, type Insertable } from 'kysely';
import type { DeliveryTable, SubmissionTable } from './schema.js';

type PgArrayType = 'text' | 'int4' | 'int8' | 'bytea';

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

const deliveryTypes = {
  id: 'text',
  submissionId: 'text',
  orgSlug: 'text',
  formId: 'text',
  kind: 'text',
  target: 'text',
  webhookSecret: 'text',
  pushSubscriptionId: 'text',
  payload: 'text',
  status: 'text',
  attempts: 'int4',
  roundAttempts: 'int4',
  nextAttemptAt: 'int8',
  lastStatus: 'int4',
  lastError: 'text',
  deliveredAt: 'text',
  createdAt: 'text',
} as const satisfies Partial<Record<keyof DeliveryTable, PgArrayType>>;

const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** `insert … select * from unnest($n::type[], …)`: one array parameter per column. */
function unnestInsert(
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

/**
 * A group commit's submissions and outbox rows as one PostgreSQL statement (its own transaction):
 * the submissions inserted in a data-modifying WITH, the deliveries by the statement itself, each
 * table's rows passed as one array per column. The statement's text is the same whatever the
 * number of rows, so neither Kysely nor PostgreSQL builds or parses a statement that grows with
 * the batch (a 256-row VALUES list cost as much as serving the requests).
 */
export function groupInsert(
  submissions: readonly Insertable<SubmissionTable>[],
  deliveries: readonly Insertable<DeliveryTable>[],
): CompiledQuery {
  const parameters: unknown[] = [];
  const insertSubmissions = unnestInsert('submissions', submissionTypes, submissions, parameters);
  if (deliveries.length === 0) return CompiledQuery.raw(insertSubmissions, parameters);
  const insertDeliveries = unnestInsert('deliveries', deliveryTypes, deliveries, parameters);
  return CompiledQuery.raw(`with s as (${insertSubmissions}) ${insertDeliveries}`, parameters);
}
