import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import { compileTemplate } from '../statement-template.js';
import type { WriterThread } from '../writer-thread.js';
import { Outbox, type AttemptMade, type DeliveryRow } from './outbox.js';

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

/**
 * The outbox on SQLite: this process is the only one on the database, so due rows are read, not
 * claimed, and records commit on the writer thread, sharing its commits with ingest.
 */
export class SqliteOutbox extends Outbox {
  private reads: ReturnType<typeof readTemplates> | undefined;

  constructor(
    db: Kysely<Database>,
    private readonly thread: WriterThread,
  ) {
    super(db);
  }

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

  async nextDueAt(): Promise<number | undefined> {
    const t = (this.reads ??= readTemplates(this.db));
    const { rows } = await this.db.executeQuery<{ at: number | string | null }>(t.nextDue);
    const at = rows[0]?.at;
    return at == null ? undefined : Number(at);
  }

  async record(items: readonly AttemptMade[]): Promise<void> {
    await this.thread.run(this.recordStatements(items));
  }

  /** Nothing to give back: rows are read, not leased. */
  async releaseLeases(): Promise<void> {}
}
