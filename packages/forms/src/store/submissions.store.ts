import type { Kysely, Selectable } from 'kysely';
import type { Database, SubmissionTable } from './schema.js';
import { eraseDeliveries } from './outbox/erase.js';
import type { Outbox } from './outbox/outbox.js';
import type { NewDelivery } from './outbox/tables.js';
import type { WebhookSource } from './webhook-payload.js';

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
  /**
   * The raw request body, byte for byte
   * (docs/forms.md#public-no-token-gated-by-the-forms-allowedorigins).
   */
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
  /** Only the spam (docs/forms.md#spam: the inbox's spam view). */
  onlySpam?: boolean;
  /** Only submissions older than this id (paging). */
  before?: string;
}

/** The file keys the `files` column of these rows lists. */
export function fileKeys(rows: readonly { files: string | null }[]): string[] {
  return rows.flatMap((r) => (r.files === null ? [] : (JSON.parse(r.files) as string[])));
}

/** Reads of stored submissions; writes go through the GroupCommitWriter. */
export class SubmissionStore {
  constructor(
    private readonly db: Kysely<Database>,
    /** Writes the outbox rows of a submission taken out of the spam. */
    private readonly outbox: Outbox,
  ) {}

  async feed(q: FeedQuery): Promise<SubmissionSummary[]> {
    let query = this.db
      .selectFrom('submissions')
      .select(summaryColumns)
      .where('orgSlug', '=', q.org)
      .orderBy('id', 'desc')
      .limit(q.limit);
    if (q.form !== undefined) query = query.where('formId', '=', q.form);
    if (q.onlySpam === true) query = query.where('spam', '=', 1);
    else if (!q.includeSpam) query = query.where('spam', '=', 0);
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

  /** The form's latest submission that is not spam, as a webhook body is made from it. */
  async latest(org: string, form: string): Promise<WebhookSource | undefined> {
    return this.db
      .selectFrom('submissions')
      .select([...RECORD_COLUMNS])
      .where('orgSlug', '=', org)
      .where('formId', '=', form)
      .where('spam', '=', 0)
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  /**
   * Takes a submission out of the spam and writes its outbox rows, in one transaction
   * (docs/forms.md#spam): the number of rows written, 0 when it was not spam (nothing changes,
   * so a repeat never fans out twice), undefined when there is no such submission.
   */
  async markNotSpam(
    org: string,
    form: string,
    id: string,
    deliveries: readonly NewDelivery[],
  ): Promise<number | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const updated = await trx
        .updateTable('submissions')
        .set({ spam: 0 })
        .where('orgSlug', '=', org)
        .where('formId', '=', form)
        .where('id', '=', id)
        .where('spam', '=', 1)
        .executeTakeFirst();
      if (updated.numUpdatedRows === 0n) {
        const found = await trx
          .selectFrom('submissions')
          .select('id')
          .where('orgSlug', '=', org)
          .where('formId', '=', form)
          .where('id', '=', id)
          .executeTakeFirst();
        return found ? 0 : undefined;
      }
      await this.outbox.insert(trx, deliveries);
      return deliveries.length;
    });
  }

  /**
   * Marks the unread submissions (not spam) of the organisation, or of one form, read, up to and
   * including `through` when given (ids grow with time); answers how many.
   */
  async markAllRead(
    org: string,
    form: string | undefined,
    through: string | undefined,
  ): Promise<number> {
    let q = this.db
      .updateTable('submissions')
      .set({ read: 1 })
      .where('orgSlug', '=', org)
      .where('read', '=', 0)
      .where('spam', '=', 0);
    if (form !== undefined) q = q.where('formId', '=', form);
    if (through !== undefined) q = q.where('id', '<=', through);
    const r = await q.executeTakeFirst();
    return Number(r.numUpdatedRows);
  }

  /** Sets the read flag; false when there is no such submission. */
  async setRead(org: string, form: string, id: string, read: boolean): Promise<boolean> {
    const r = await this.db
      .updateTable('submissions')
      .set({ read: read ? 1 : 0 })
      .where('orgSlug', '=', org)
      .where('formId', '=', form)
      .where('id', '=', id)
      .executeTakeFirst();
    return r.numUpdatedRows > 0n;
  }

  /**
   * Erases a submission with its outbox rows and their attempt log, in one transaction
   * (docs/forms.md#submissions): the keys of its stored files (whose bytes the caller removes
   * once this has committed), or undefined when there is no such submission.
   */
  async delete(org: string, form: string, id: string): Promise<string[] | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const found = await trx
        .deleteFrom('submissions')
        .where('orgSlug', '=', org)
        .where('formId', '=', form)
        .where('id', '=', id)
        .returning('files')
        .executeTakeFirst();
      if (!found) return undefined;
      await eraseDeliveries(trx, { submissionId: id });
      return fileKeys([found]);
    });
  }

  /**
   * Deletes, with their outbox rows and delivery logs, the submissions of every form that has a
   * retention, received more than its `retentionDays` before `now` (docs/forms.md#retention).
   * The number deleted and the keys of their stored files (the caller removes those bytes).
   */
  async sweepRetention(now: number): Promise<{ deleted: number; files: string[] }> {
    const forms = await this.db
      .selectFrom('forms')
      .select(['orgSlug', 'id', 'retentionDays'])
      .where('retentionDays', 'is not', null)
      .execute();
    let deleted = 0;
    const files: string[] = [];
    for (const f of forms) {
      const cutoff = new Date(now - (f.retentionDays ?? 0) * 86_400_000).toISOString();
      const rows = await this.db.transaction().execute(async (trx) => {
        await eraseDeliveries(trx, { orgSlug: f.orgSlug, formId: f.id, receivedBefore: cutoff });
        return trx
          .deleteFrom('submissions')
          .where('orgSlug', '=', f.orgSlug)
          .where('formId', '=', f.id)
          .where('receivedAt', '<', cutoff)
          .returning('files')
          .execute();
      });
      deleted += rows.length;
      files.push(...fileKeys(rows));
    }
    return { deleted, files };
  }

  /** Of these submission ids, the ones that exist (the orphan-file sweep asks). */
  async existing(ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.db
      .selectFrom('submissions')
      .select('id')
      .where('id', 'in', [...ids])
      .execute();
    return new Set(rows.map((r) => r.id));
  }

  /**
   * Every submission of a form, or of the organisation when `form` is undefined, oldest first,
   * received in [since, until) when given (ISO strings, compared as stored), read page by page so
   * memory stays flat.
   */
  async *all(
    org: string,
    form: string | undefined,
    range: { since?: string; until?: string } = {},
    pageSize = 500,
  ): AsyncGenerator<SubmissionRecord> {
    let after = '';
    for (;;) {
      let query = this.db
        .selectFrom('submissions')
        .selectAll()
        .where('orgSlug', '=', org)
        .where('id', '>', after)
        .orderBy('id')
        .limit(pageSize);
      if (form !== undefined) query = query.where('formId', '=', form);
      if (range.since !== undefined) query = query.where('receivedAt', '>=', range.since);
      if (range.until !== undefined) query = query.where('receivedAt', '<', range.until);
      const rows = await query.execute();
      for (const row of rows) yield toRecord(row);
      const last = rows.at(-1);
      if (!last || rows.length < pageSize) return;
      after = last.id;
    }
  }
}
