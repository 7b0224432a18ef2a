import { sql, type CompiledQuery, type Kysely, type Selectable } from 'kysely';
import type { Database, DeliveryTable } from './schema.js';
import { RECORD_COLUMNS } from './submissions.store.js';
import { WEBHOOK_PAYLOAD_FROM_SUBMISSION, webhookPayload } from './webhook-payload.js';
import { compileTemplate } from './statement-template.js';
import type { WriterThread } from './writer-thread.js';

export type DeliveryRow = Selectable<DeliveryTable>;

export interface DeliveryView {
  id: string;
  kind: DeliveryRow['kind'];
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
const recordKeys: readonly RecordKey[] = [
  'deliveryId',
  'attemptedAt',
  'status',
  'durationMs',
  'error',
  'outcome',
  'response',
  'nextStatus',
  'roundAttempts',
  'nextAttemptAt',
  'deliveredAt',
];

const attemptKeys = [
  'deliveryId',
  'attemptedAt',
  'status',
  'durationMs',
  'error',
  'outcome',
  'response',
] as const;
const updateKeys = recordKeys.filter(
  (k) => k !== 'attemptedAt' && k !== 'durationMs' && k !== 'outcome' && k !== 'response',
);

/** What an attempt came to, as the delivery log shows it (docs/forms.md#webhooks). */
export type AttemptOutcomeName = 'delivered' | 'retrying' | 'failed' | 'dropped';

export function outcomeOf(next: DeliveryRow['status']): AttemptOutcomeName {
  return next === 'pending' ? 'retrying' : next;
}

function recordValues(delivery: DeliveryRow, outcome: AttemptOutcome): Record<RecordKey, unknown> {
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
 * Removes the attempt log of a delivery that is gone: an attempt recorded after its submission was
 * erased writes nothing that stays (see eraseDeliveries).
 */
function orphanAttempts(db: Kysely<Database>, deliveryId: string): CompiledQuery {
  return db
    .deleteFrom('deliveryAttempts')
    .where('deliveryId', '=', deliveryId)
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('deliveries')
            .select('deliveries.id')
            .whereRef('deliveries.id', '=', 'deliveryAttempts.deliveryId'),
        ),
      ),
    )
    .compile();
}

/** The attempt record's statements, compiled once (see compileTemplate). */
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
            outcome: v.outcome as string | null,
            response: v.response as string | null,
          })
          .compile() as CompiledQuery,
    ),
    orphan: compileTemplate(['deliveryId'] as const, (v) =>
      orphanAttempts(db, v.deliveryId as string),
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
            leaseOwner: null,
            leaseUntil: null,
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

/** How this process takes deliveries from the outbox. */
export type OutboxAccess =
  /** The only process on the database (SQLite): reads due rows; records commit on the thread. */
  | { thread: WriterThread }
  /**
   * One of several instances on one database (PostgreSQL): claims due rows with a lease in its
   * own name, so each attempt is made by exactly one instance (docs/forms.md#several-instances).
   */
  | { owner: string };

/** The durable outbox the delivery worker drains, and each attempt's record. */
export class DeliveryStore {
  private templates: ReturnType<typeof recordTemplates> | undefined;
  private reads: ReturnType<typeof readTemplates> | undefined;
  private readonly thread: WriterThread | undefined;
  private readonly owner: string | undefined;

  constructor(
    private readonly db: Kysely<Database>,
    access: OutboxAccess,
  ) {
    this.thread = 'thread' in access ? access.thread : undefined;
    this.owner = 'owner' in access ? access.owner : undefined;
  }

  /**
   * Pending deliveries due at `now`, oldest due first, except those in `skip`. Shared by several
   * instances, the rows come claimed: leased to this instance until `now + leaseMs`, taken only
   * where no other instance holds a lease that is still running (rows another claim is taking at
   * this moment are skipped, not waited for).
   */
  async due(
    now: number,
    limit: number,
    skip: readonly string[],
    leaseMs: number,
  ): Promise<DeliveryRow[]> {
    if (this.owner !== undefined) {
      const skipped = new Set(skip);
      const rows = await this.claim(this.owner, now, limit + skip.length, leaseMs);
      return this.withPayloads(rows.filter((r) => !skipped.has(r.id)).slice(0, limit));
    }
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

  private async claim(
    owner: string,
    now: number,
    limit: number,
    leaseMs: number,
  ): Promise<DeliveryRow[]> {
    const rows = await this.db
      .updateTable('deliveries')
      .set({ leaseOwner: owner, leaseUntil: now + leaseMs })
      .where('id', 'in', (eb) =>
        eb
          .selectFrom('deliveries')
          .select('id')
          .where('status', '=', 'pending')
          .where('nextAttemptAt', '<=', now)
          .where((w) =>
            w.or([
              w('leaseUntil', 'is', null),
              w('leaseUntil', '<=', now),
              w('leaseOwner', '=', owner),
            ]),
          )
          .orderBy('nextAttemptAt')
          .limit(limit)
          .forUpdate()
          .skipLocked(),
      )
      .returningAll()
      .execute();
    return rows.sort((a, b) => Number(a.nextAttemptAt) - Number(b.nextAttemptAt));
  }

  /** Gives back this instance's leases (graceful shutdown): another instance may take them now. */
  async releaseLeases(): Promise<void> {
    if (this.owner === undefined) return;
    await this.db
      .updateTable('deliveries')
      .set({ leaseOwner: null, leaseUntil: null })
      .where('leaseOwner', '=', this.owner)
      .execute();
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

  /**
   * When the next pending delivery falls due (epoch ms), if any. Shared, a row under a running
   * lease (another instance's attempt, or one of ours in flight) falls due when the lease runs out.
   */
  async nextDueAt(): Promise<number | undefined> {
    if (this.owner !== undefined) {
      const row = await this.db
        .selectFrom('deliveries')
        .select(
          sql<
            number | null
          >`min(case when lease_until > next_attempt_at then lease_until else next_attempt_at end)`.as(
            'at',
          ),
        )
        .where('status', '=', 'pending')
        .executeTakeFirst();
      return row?.at ?? undefined;
    }
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
            outcome: outcomeOf(outcome.next.status),
            response: outcome.response ?? null,
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
            leaseOwner: null,
            leaseUntil: null,
          }))
          .where('id', '=', delivery.id)
          .compile(),
        orphanAttempts(db, delivery.id),
      ]);
    if (this.thread) {
      const t = (this.templates ??= recordTemplates(this.db));
      const params = items.map(({ delivery, outcome }) => recordValues(delivery, outcome));
      await this.thread.run([
        { sql: t.attempt.sql, rows: params.map((p) => t.attempt.bind(p)) },
        { sql: t.update.sql, rows: params.map((p) => t.update.bind(p)) },
        { sql: t.orphan.sql, rows: params.map((p) => t.orphan.bind(p)) },
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
      // A test send (docs/forms.md#webhooks) is the webhook's, not the submission's.
      .where('test', '=', 0)
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
      // A lease is let go too: a redeliver is sent now, whoever held the delivery.
      .set({
        status: 'pending',
        roundAttempts: 0,
        nextAttemptAt: now,
        leaseOwner: null,
        leaseUntil: null,
      })
      .where('submissionId', '=', submissionId)
      .where('status', '!=', 'dropped')
      .where('test', '=', 0)
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
