import type { CompiledQuery, Kysely, Transaction } from 'kysely';
import type { Database } from '../schema.js';
import { RECORD_COLUMNS } from '../submissions.store.js';
import { compileTemplate, type StatementTemplate } from '../statement-template.js';
import { WEBHOOK_PAYLOAD_FROM_SUBMISSION, webhookPayload } from '../webhook-payload.js';
import { attemptColumns, DeliveryLog, type DeliveryRow } from './delivery-log.js';
import { newDeliveryColumns, type NewDelivery, type NewDeliveryColumn } from './tables.js';

export type { AttemptRow, DeliveryRow, DeliveryView, LoggedDelivery } from './delivery-log.js';

export interface AttemptOutcome {
  attemptedAt: string;
  status: number | null;
  durationMs: number;
  error: string | null;
  /** The first bytes of the answer, already made safe text (services/delivery/response-excerpt). */
  response?: string | null;
  /** The delivery's new state after this attempt. */
  next: {
    status: DeliveryRow['status'];
    roundAttempts: number;
    nextAttemptAt: number;
    deliveredAt: string | null;
  };
}

/** What an attempt came to, as the delivery log shows it (docs/forms.md#webhooks). */
export type AttemptOutcomeName = 'delivered' | 'retrying' | 'failed' | 'dropped';

export function outcomeOf(next: DeliveryRow['status']): AttemptOutcomeName {
  return next === 'pending' ? 'retrying' : next;
}

/** An attempt and the delivery it was made for, as `record` takes them. */
export interface AttemptMade {
  delivery: Pick<DeliveryRow, 'id' | 'deliveredAt'>;
  outcome: AttemptOutcome;
}

/** The deliveries a requeue starts again: a submission's (not its test sends), or one of a form's. */
export type RequeueOf = { submissionId: string } | { orgSlug: string; formId: string; id: string };

type RecordKey =
  | 'deliveryId'
  | 'attemptedAt'
  | 'status'
  | 'durationMs'
  | 'error'
  | 'outcome'
  | 'response'
  | 'nextStatus'
  | 'roundAttempts'
  | 'nextAttemptAt'
  | 'deliveredAt';

function recordValues({ delivery, outcome }: AttemptMade): Record<RecordKey, unknown> {
  return {
    deliveryId: delivery.id,
    attemptedAt: outcome.attemptedAt,
    status: outcome.status,
    durationMs: outcome.durationMs,
    error: outcome.error,
    outcome: outcomeOf(outcome.next.status),
    response: outcome.response ?? null,
    nextStatus: outcome.next.status,
    roundAttempts: outcome.next.roundAttempts,
    nextAttemptAt: outcome.next.nextAttemptAt,
    deliveredAt: outcome.next.deliveredAt ?? delivery.deliveredAt,
  };
}

/**
 * The outbox's statements, compiled once for the database at hand (see compileTemplate): the new
 * row, and the attempt record's two statements.
 *
 * The attempt record is ordered with erasure by the delivery's row (docs/forms.md#submissions):
 * `update` goes first and holds the row until the commit (an erasure deleting it waits, then also
 * erases the attempt), and `attempt` inserts only while the row is there, reading it again after
 * that update (an erasure that committed first leaves the attempt nothing to write).
 */
function outboxTemplates(db: Kysely<Database>) {
  return {
    newRow: compileTemplate(newDeliveryColumns, (v) =>
      db
        .insertInto('deliveries')
        .values(v as unknown as NewDelivery)
        .compile(),
    ),
    update: compileTemplate(
      [
        'deliveryId',
        'status',
        'error',
        'nextStatus',
        'roundAttempts',
        'nextAttemptAt',
        'deliveredAt',
      ] as const,
      (v) =>
        db
          .updateTable('deliveries')
          .set((eb) => ({
            attempts: eb('attempts', '+', 1),
            roundAttempts: v.roundAttempts as number,
            status: v.nextStatus as DeliveryRow['status'],
            nextAttemptAt: v.nextAttemptAt as number,
            lastStatus: v.status as number | null,
            lastError: v.error as string | null,
            deliveredAt: v.deliveredAt as string | null,
            leaseOwner: null,
            leaseUntil: null,
          }))
          .where('id', '=', v.deliveryId as string)
          .compile() as CompiledQuery,
    ),
    // Cast, as PostgreSQL types a bare parameter in a select list as text.
    attempt: compileTemplate(
      attemptColumns,
      (v) =>
        db
          .insertInto('deliveryAttempts')
          .columns(attemptColumns)
          .expression(
            db
              .selectFrom('deliveries')
              .select((eb) => [
                'id',
                eb.cast<string>(eb.val(v.attemptedAt), 'text').as('attemptedAt'),
                eb.cast<number | null>(eb.val(v.status), 'integer').as('status'),
                eb.cast<number>(eb.val(v.durationMs), 'integer').as('durationMs'),
                eb.cast<string | null>(eb.val(v.error), 'text').as('error'),
                eb.cast<string | null>(eb.val(v.outcome), 'text').as('outcome'),
                eb.cast<string | null>(eb.val(v.response), 'text').as('response'),
              ])
              .where('id', '=', v.deliveryId as string),
          )
          .compile() as CompiledQuery,
    ),
  };
}

/**
 * The one owner of deliveries (docs/architecture.md#the-outbox): the outbox the delivery worker
 * drains, each attempt's record, requeues and the delivery log. What is the same on every
 * database is here, once; each database is a class beneath (SqliteOutbox, PostgresOutbox) with
 * what differs: how due rows are taken, and where a record commits.
 */
export abstract class Outbox extends DeliveryLog {
  private compiled: ReturnType<typeof outboxTemplates> | undefined;

  /**
   * Pending deliveries due at `now`, oldest due first, except those in `skip` (attempts in
   * flight), their webhook bodies filled in; taken for `leaseMs` where instances share the outbox.
   */
  abstract due(
    now: number,
    limit: number,
    skip: readonly string[],
    leaseMs: number,
  ): Promise<DeliveryRow[]>;

  /** When the next pending delivery falls due (epoch ms), if any. */
  abstract nextDueAt(): Promise<number | undefined>;

  /** Records attempts and the deliveries' new states, many in one transaction (one sync). */
  abstract record(items: readonly AttemptMade[]): Promise<void>;

  /** Gives back what this process took and did not attempt (graceful shutdown). */
  abstract releaseLeases(): Promise<void>;

  protected get templates(): ReturnType<typeof outboxTemplates> {
    return (this.compiled ??= outboxTemplates(this.db));
  }

  /**
   * The new-row statement, compiled once: a group commit binds each new delivery to it in its own
   * transaction (on the writer thread, see GroupCommitWriter).
   */
  get newRow(): StatementTemplate<NewDeliveryColumn> {
    return this.templates.newRow;
  }

  /** Writes new deliveries in the caller's transaction (a submission taken out of the spam). */
  async insert(trx: Transaction<Database>, rows: readonly NewDelivery[]): Promise<void> {
    const t = this.templates.newRow;
    for (const row of rows) await trx.executeQuery({ ...t.compiled, parameters: t.bind(row) });
  }

  /** The attempt record's statements for `items`, in the order they must run. */
  protected recordStatements(items: readonly AttemptMade[]): { sql: string; rows: unknown[][] }[] {
    const { update, attempt } = this.templates;
    const values = items.map(recordValues);
    return [
      { sql: update.sql, rows: values.map((v) => update.bind(v)) },
      { sql: attempt.sql, rows: values.map((v) => attempt.bind(v)) },
    ];
  }

  /** Runs the attempt record's statements on `trx` (a transaction of the event loop's). */
  protected async recordOn(
    trx: Transaction<Database>,
    items: readonly AttemptMade[],
  ): Promise<void> {
    const { update, attempt } = this.templates;
    for (const item of items) {
      const v = recordValues(item);
      await trx.executeQuery({ ...update.compiled, parameters: update.bind(v) });
      await trx.executeQuery({ ...attempt.compiled, parameters: attempt.bind(v) });
    }
  }

  /**
   * Stores a delivery that was attempted as it was written (a webhook's test send): the new row
   * and its attempt's record, in one transaction.
   */
  async insertAttempted(row: NewDelivery, outcome: AttemptOutcome): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await this.insert(trx, [row]);
      await this.recordOn(trx, [{ delivery: { id: row.id, deliveredAt: null }, outcome }]);
    });
  }

  /**
   * Queues deliveries again from the start of the retry schedule, now; a lease is let go too (a
   * redeliver is sent now, whoever held the delivery). A dropped delivery stays dropped. Answers
   * how many were queued.
   */
  async requeue(of: RequeueOf, now: number): Promise<number> {
    let q = this.db
      .updateTable('deliveries')
      .set({
        status: 'pending',
        roundAttempts: 0,
        nextAttemptAt: now,
        leaseOwner: null,
        leaseUntil: null,
      })
      .where('status', '!=', 'dropped');
    q =
      'submissionId' in of
        ? q.where('submissionId', '=', of.submissionId).where('test', '=', 0)
        : q
            .where('orgSlug', '=', of.orgSlug)
            .where('formId', '=', of.formId)
            .where('id', '=', of.id);
    const r = await q.executeTakeFirst();
    return Number(r.numUpdatedRows);
  }

  /** Pending pushes to a subscription that is gone stop here. */
  async dropForSubscription(subscriptionId: string): Promise<void> {
    await this.db
      .updateTable('deliveries')
      .set({ status: 'dropped' })
      .where('pushSubscriptionId', '=', subscriptionId)
      .where('status', '=', 'pending')
      .execute();
  }

  /** Fills in the webhook bodies built from their submission rows (see webhookPayload). */
  protected async withPayloads(rows: DeliveryRow[]): Promise<DeliveryRow[]> {
    const fromSubmission = rows.filter(
      (r) => r.kind === 'webhook' && r.payload === WEBHOOK_PAYLOAD_FROM_SUBMISSION,
    );
    const ids = [...new Set(fromSubmission.map((r) => r.submissionId))];
    if (ids.length === 0) return rows;
    const sources = await this.db
      .selectFrom('submissions')
      .select([...RECORD_COLUMNS])
      .where('id', 'in', ids)
      .execute();
    const payloads = new Map(sources.map((s) => [s.id, webhookPayload(s)]));
    for (const r of fromSubmission) r.payload = payloads.get(r.submissionId) ?? r.payload;
    return rows;
  }
}
