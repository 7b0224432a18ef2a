import type { CompiledQuery, Kysely, Selectable } from 'kysely';
import type { Database, DeliveryTable } from './schema.js';
import { RECORD_COLUMNS } from './submissions.store.js';
import { WEBHOOK_PAYLOAD_FROM_SUBMISSION, webhookPayload } from './webhook-payload.js';
import { compileTemplate } from './statement-template.js';
import type { WriterThread } from './writer-thread.js';

export type DeliveryRow = Selectable<DeliveryTable>;

export interface DeliveryView {
  id: string;
  kind: 'webhook' | 'push';
  target: string;
  status: DeliveryRow['status'];
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
  deliveredAt: string | null;
  nextAttemptAt: string | null;
}

export interface AttemptOutcome {
  attemptedAt: string;
  status: number | null;
  durationMs: number;
  error: string | null;
  /** The delivery's new state after this attempt. */
  next: {
    status: DeliveryRow['status'];
    roundAttempts: number;
    nextAttemptAt: number;
    deliveredAt: string | null;
  };
}

type RecordKey =
  | 'deliveryId'
  | 'attemptedAt'
  | 'status'
  | 'durationMs'
  | 'error'
  | 'nextStatus'
  | 'roundAttempts'
  | 'nextAttemptAt'
  | 'deliveredAt';
const recordKeys: readonly RecordKey[] = [
  'deliveryId',
  'attemptedAt',
  'status',
  'durationMs',
  'error',
  'nextStatus',
  'roundAttempts',
  'nextAttemptAt',
  'deliveredAt',
];

const attemptKeys = ['deliveryId', 'attemptedAt', 'status', 'durationMs', 'error'] as const;
const updateKeys = recordKeys.filter((k) => k !== 'attemptedAt' && k !== 'durationMs');

function recordValues(delivery: DeliveryRow, outcome: AttemptOutcome): Record<RecordKey, unknown> {
  return {
    deliveryId: delivery.id,
    attemptedAt: outcome.attemptedAt,
    status: outcome.status,
    durationMs: outcome.durationMs,
    error: outcome.error,
    nextStatus: outcome.next.status,
    roundAttempts: outcome.next.roundAttempts,
    nextAttemptAt: outcome.next.nextAttemptAt,
    deliveredAt: outcome.next.deliveredAt ?? delivery.deliveredAt,
  };
}

/** The attempt record's two statements, compiled once (see compileTemplate). */
function recordTemplates(db: Kysely<Database>) {
  // The placeholders are strings standing in for values of any column type.
  return {
    attempt: compileTemplate(
      attemptKeys,
      (v) =>
        db
          .insertInto('deliveryAttempts')
          .values({
            deliveryId: v.deliveryId as string,
            attemptedAt: v.attemptedAt as string,
            status: v.status as number | null,
            durationMs: v.durationMs as number,
            error: v.error as string | null,
          })
          .compile() as CompiledQuery,
    ),
    update: compileTemplate(
      updateKeys,
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
          }))
          .where('id', '=', v.deliveryId as string)
          .compile() as CompiledQuery,
    ),
  };
}

/** The worker's two outbox reads, compiled once. */
function readTemplates(db: Kysely<Database>) {
  return {
    due: compileTemplate(['now', 'limit'] as const, (v) =>
      db
        .selectFrom('deliveries')
        .selectAll()
        .where('status', '=', 'pending')
        .where('nextAttemptAt', '<=', v.now as number)
        .orderBy('nextAttemptAt')
        .limit(v.limit as number)
        .compile(),
    ),
    nextDue: db
      .selectFrom('deliveries')
      .select((eb) => eb.fn.min('nextAttemptAt').as('at'))
      .where('status', '=', 'pending')
      .compile(),
  };
}

/** The durable outbox the delivery worker drains, and each attempt's record. */
export class DeliveryStore {
  private templates: ReturnType<typeof recordTemplates> | undefined;
  private reads: ReturnType<typeof readTemplates> | undefined;

  /** With `thread`, attempt records commit on the writer thread, as ingest does. */
  constructor(
    private readonly db: Kysely<Database>,
    private readonly thread?: WriterThread,
  ) {}

  /** Pending deliveries due at `now`, oldest due first, except those in `skip`. */
  async due(now: number, limit: number, skip: readonly string[]): Promise<DeliveryRow[]> {
    // Compiled once: the worker asks each time a slot frees up, and building the query cost more
    // than running it. The few rows in `skip` (attempts in flight) are left out here, not in SQL,
    // so the text never changes.
    const t = (this.reads ??= readTemplates(this.db));
    const { rows } = await this.db.executeQuery<DeliveryRow>({
      ...t.due.compiled,
      parameters: t.due.bind({ now, limit: limit + skip.length }),
    });
    const skipped = new Set(skip);
    const due = skip.length === 0 ? rows : rows.filter((r) => !skipped.has(r.id)).slice(0, limit);
    return this.withPayloads(due);
  }

  /** Fills in the webhook bodies built from their submission rows (see webhookPayload). */
  private async withPayloads(rows: DeliveryRow[]): Promise<DeliveryRow[]> {
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

  /** When the next pending delivery falls due (epoch ms), if any. */
  async nextDueAt(): Promise<number | undefined> {
    const t = (this.reads ??= readTemplates(this.db));
    const { rows } = await this.db.executeQuery<{ at: number | string | null }>(t.nextDue);
    const at = rows[0]?.at;
    return at == null ? undefined : Number(at);
  }

  /** Records attempts and the deliveries' new states, many in one transaction (one sync). */
  async record(
    items: readonly { delivery: DeliveryRow; outcome: AttemptOutcome }[],
  ): Promise<void> {
    const statements = (db: Kysely<Database>): CompiledQuery[] =>
      items.flatMap(({ delivery, outcome }): CompiledQuery[] => [
        db
          .insertInto('deliveryAttempts')
          .values({
            deliveryId: delivery.id,
            attemptedAt: outcome.attemptedAt,
            status: outcome.status,
            durationMs: outcome.durationMs,
            error: outcome.error,
          })
          .compile() as CompiledQuery,
        db
          .updateTable('deliveries')
          .set((eb) => ({
            attempts: eb('attempts', '+', 1),
            roundAttempts: outcome.next.roundAttempts,
            status: outcome.next.status,
            nextAttemptAt: outcome.next.nextAttemptAt,
            lastStatus: outcome.status,
            lastError: outcome.error,
            deliveredAt: outcome.next.deliveredAt ?? delivery.deliveredAt,
          }))
          .where('id', '=', delivery.id)
          .compile(),
      ]);
    if (this.thread) {
      const t = (this.templates ??= recordTemplates(this.db));
      const params = items.map(({ delivery, outcome }) => recordValues(delivery, outcome));
      await this.thread.run([
        { sql: t.attempt.sql, rows: params.map((p) => t.attempt.bind(p)) },
        { sql: t.update.sql, rows: params.map((p) => t.update.bind(p)) },
      ]);
      return;
    }
    await this.db.transaction().execute(async (trx) => {
      for (const q of statements(trx)) await trx.executeQuery(q);
    });
  }

  async ofSubmission(submissionId: string): Promise<DeliveryView[]> {
    const rows = await this.db
      .selectFrom('deliveries')
      .selectAll()
      .where('submissionId', '=', submissionId)
      .orderBy('id')
      .execute();
    return rows.map((r) => ({
      id: r.id,
      kind: r.kind,
      target: r.target,
      status: r.status,
      attempts: r.attempts,
      lastStatus: r.lastStatus,
      lastError: r.lastError,
      deliveredAt: r.deliveredAt,
      nextAttemptAt:
        r.status === 'pending' ? new Date(Number(r.nextAttemptAt)).toISOString() : null,
    }));
  }

  async attempts(
    deliveryId: string,
  ): Promise<
    { attemptedAt: string; status: number | null; durationMs: number; error: string | null }[]
  > {
    return this.db
      .selectFrom('deliveryAttempts')
      .select(['attemptedAt', 'status', 'durationMs', 'error'])
      .where('deliveryId', '=', deliveryId)
      .orderBy('id')
      .execute();
  }

  /** Queues a submission's deliveries again from the start of the schedule (redeliver). */
  async requeue(submissionId: string, now: number): Promise<number> {
    const r = await this.db
      .updateTable('deliveries')
      .set({ status: 'pending', roundAttempts: 0, nextAttemptAt: now })
      .where('submissionId', '=', submissionId)
      .where('status', '!=', 'dropped')
      .executeTakeFirst();
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
}
