import { CompiledQuery, sql, type Kysely } from 'kysely';
import type { Database } from '../schema.js';
import { Outbox, type AttemptMade, type DeliveryRow } from './outbox.js';
import { unnestInsert } from '../postgres-group-insert.js';
import { NEW_DELIVERY_COLUMNS, type NewDelivery } from './tables.js';

/**
 * The outbox on PostgreSQL, which several instances may share (docs/forms.md#several-instances):
 * due rows are claimed with a lease in this instance's name, so each attempt is made by exactly
 * one instance, and records commit in a transaction of their own.
 */
export class PostgresOutbox extends Outbox {
  constructor(
    db: Kysely<Database>,
    /** This instance's name: its leases carry it. */
    private readonly owner: string,
  ) {
    super(db);
  }

  /**
   * New deliveries as the one statement of a group commit: `prior` (the submissions' insert, with
   * its parameters already in `parameters`) as a data-modifying WITH, then the deliveries.
   */
  insertAfter(prior: string, rows: readonly NewDelivery[], parameters: unknown[]): CompiledQuery {
    if (rows.length === 0) return CompiledQuery.raw(prior, parameters);
    const insert = unnestInsert('deliveries', NEW_DELIVERY_COLUMNS, rows, parameters);
    return CompiledQuery.raw(`with s as (${prior}) ${insert}`, parameters);
  }

  /**
   * Claimed rows: leased to this instance until `now + leaseMs`, taken only where no other
   * instance holds a lease that is still running (rows another claim is taking at this moment are
   * skipped, not waited for).
   */
  async due(
    now: number,
    limit: number,
    skip: readonly string[],
    leaseMs: number,
  ): Promise<DeliveryRow[]> {
    const owner = this.owner;
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
          .limit(limit + skip.length)
          .forUpdate()
          .skipLocked(),
      )
      .returningAll()
      .execute();
    const skipped = new Set(skip);
    const due = rows
      .sort((a, b) => Number(a.nextAttemptAt) - Number(b.nextAttemptAt))
      .filter((r) => !skipped.has(r.id))
      .slice(0, limit);
    return this.withPayloads(due);
  }

  /** A row under a running lease (another instance's attempt, or ours) is due when it runs out. */
  async nextDueAt(): Promise<number | undefined> {
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

  async record(items: readonly AttemptMade[]): Promise<void> {
    await this.db.transaction().execute((trx) => this.recordOn(trx, items));
  }

  /** Another instance may take this one's leases now. */
  async releaseLeases(): Promise<void> {
    await this.db
      .updateTable('deliveries')
      .set({ leaseOwner: null, leaseUntil: null })
      .where('leaseOwner', '=', this.owner)
      .execute();
  }
}
