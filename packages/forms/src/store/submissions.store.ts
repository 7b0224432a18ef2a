import type { Kysely, Selectable } from 'kysely';
import type { Database, SubmissionTable } from './schema.js';

export interface SubmissionSummary {
  id: string;
  org: string;
  form: string;
  receivedAt: string;
  read: boolean;
  spam: boolean;
  preview: string;
}

export interface SubmissionRecord extends SubmissionSummary {
  answers: Record<string, unknown>;
  submitFields: Record<string, unknown> | null;
  origin: string | null;
  referer: string | null;
  userAgent: string | null;
  ip: string;
  definitionVersion: number | null;
  /** The raw request body, byte for byte (spec 2 §2.5). */
  body: Buffer;
}

const summaryColumns = [
  'id',
  'orgSlug',
  'formId',
  'receivedAt',
  'read',
  'spam',
  'preview',
] as const;

/** The columns of a full record (toRecord): every one but the raw body. */
export const RECORD_COLUMNS = [
  ...summaryColumns,
  'answers',
  'submitFields',
  'origin',
  'referer',
  'userAgent',
  'ip',
  'definitionVersion',
] as const satisfies readonly (keyof SubmissionTable)[];

function toSummary(
  r: Pick<Selectable<SubmissionTable>, (typeof summaryColumns)[number]>,
): SubmissionSummary {
  return {
    id: r.id,
    org: r.orgSlug,
    form: r.formId,
    receivedAt: r.receivedAt,
    read: Boolean(r.read),
    spam: Boolean(r.spam),
    preview: r.preview,
  };
}

export function toRecord(r: Selectable<SubmissionTable>): SubmissionRecord {
  return {
    ...toSummary(r),
    answers: JSON.parse(r.answers) as Record<string, unknown>,
    submitFields:
      r.submitFields === null ? null : (JSON.parse(r.submitFields) as Record<string, unknown>),
    origin: r.origin,
    referer: r.referer,
    userAgent: r.userAgent,
    ip: r.ip,
    definitionVersion: r.definitionVersion,
    body: Buffer.from(r.body),
  };
}

export interface FeedQuery {
  org: string;
  form?: string;
  limit: number;
  includeSpam: boolean;
  /** Only submissions older than this id (paging). */
  before?: string;
}

/** Reads of stored submissions; writes go through the GroupCommitWriter. */
export class SubmissionStore {
  constructor(private readonly db: Kysely<Database>) {}

  async feed(q: FeedQuery): Promise<SubmissionSummary[]> {
    let query = this.db
      .selectFrom('submissions')
      .select(summaryColumns)
      .where('orgSlug', '=', q.org)
      .orderBy('id', 'desc')
      .limit(q.limit);
    if (q.form !== undefined) query = query.where('formId', '=', q.form);
    if (!q.includeSpam) query = query.where('spam', '=', 0);
    if (q.before !== undefined) query = query.where('id', '<', q.before);
    return (await query.execute()).map(toSummary);
  }

  async get(org: string, form: string, id: string): Promise<SubmissionRecord | undefined> {
    const row = await this.db
      .selectFrom('submissions')
      .selectAll()
      .where('orgSlug', '=', org)
      .where('formId', '=', form)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toRecord(row) : undefined;
  }

  async markRead(org: string, form: string, id: string): Promise<boolean> {
    const r = await this.db
      .updateTable('submissions')
      .set({ read: 1 })
      .where('orgSlug', '=', org)
      .where('formId', '=', form)
      .where('id', '=', id)
      .executeTakeFirst();
    return r.numUpdatedRows > 0n;
  }

  /** Every submission of a form, oldest first, read page by page so memory stays flat. */
  async *all(org: string, form: string, pageSize = 500): AsyncGenerator<SubmissionRecord> {
    let after = '';
    for (;;) {
      const rows = await this.db
        .selectFrom('submissions')
        .selectAll()
        .where('orgSlug', '=', org)
        .where('formId', '=', form)
        .where('id', '>', after)
        .orderBy('id')
        .limit(pageSize)
        .execute();
      for (const row of rows) yield toRecord(row);
      const last = rows.at(-1);
      if (!last || rows.length < pageSize) return;
      after = last.id;
    }
  }
}
