import type { Insertable, Kysely, Transaction } from 'kysely';
import type { Database, DeliveryTable, SubmissionTable } from './schema.js';
import { compileTemplate } from './statement-template.js';
import type { WriterThread } from './writer-thread.js';

export interface SubmissionWrite {
  submission: Insertable<SubmissionTable>;
  /** The outbox rows: written in the same transaction as the submission (issue 5). */
  deliveries: Insertable<DeliveryTable>[];
}

const submissionColumns = [
  'id',
  'orgSlug',
  'formId',
  'receivedAt',
  'read',
  'spam',
  'preview',
  'answers',
  'submitFields',
  'origin',
  'referer',
  'userAgent',
  'ip',
  'body',
  'definitionVersion',
] as const satisfies readonly (keyof SubmissionTable)[];

const deliveryColumns = [
  'id',
  'submissionId',
  'orgSlug',
  'formId',
  'kind',
  'target',
  'webhookSecret',
  'pushSubscriptionId',
  'payload',
  'status',
  'attempts',
  'roundAttempts',
  'nextAttemptAt',
  'lastStatus',
  'lastError',
  'deliveredAt',
  'createdAt',
] as const satisfies readonly (keyof DeliveryTable)[];

function writeTemplates(db: Kysely<Database>) {
  return {
    submission: compileTemplate(submissionColumns, (v) =>
      db
        .insertInto('submissions')
        .values(v as unknown as Insertable<SubmissionTable>)
        .compile(),
    ),
    delivery: compileTemplate(deliveryColumns, (v) =>
      db
        .insertInto('deliveries')
        .values(v as unknown as Insertable<DeliveryTable>)
        .compile(),
    ),
  };
}

interface Pending {
  write: SubmissionWrite;
  resolve: () => void;
  reject: (err: unknown) => void;
}

const maxBatch = 256;
const deliveryChunk = 400; // 17 columns a row stays far below SQLite's 32766 bound parameters

/**
 * Group commit (issue 5): submissions that arrive while a commit is in progress wait for the next
 * one, and all of them share that one transaction and its one sync. `write` resolves only after
 * the commit returned, that is after the WAL was synced (`synchronous=FULL`).
 *
 * With the writer thread, each turn of the event loop hands its batch over at once (up to
 * `maxInFlight` batches in flight) and the thread folds every batch waiting for it into its next
 * commit; without it, one Kysely transaction at a time.
 */
export class GroupCommitWriter {
  private queue: Pending[] = [];
  private inFlight = 0;
  private scheduled = false;
  private idle: (() => void)[] = [];
  private templates: ReturnType<typeof writeTemplates> | undefined;

  /**
   * `thread`, when given, runs the commits off the event loop (SQLite); otherwise they run as a
   * Kysely transaction on `db` (any dialect).
   */
  constructor(
    private readonly db: Kysely<Database>,
    private readonly onCommitted: () => void,
    private readonly thread?: WriterThread,
  ) {
    this.maxInFlight = thread ? 8 : 1;
  }

  private readonly maxInFlight: number;

  write(write: SubmissionWrite): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ write, resolve, reject });
      this.schedule();
    });
  }

  /** Whether submissions are waiting for or in a commit (an ingest burst is going on). */
  busy(): boolean {
    return this.inFlight > 0 || this.queue.length > 0;
  }

  /** Resolves once every queued write has been committed or failed. */
  drained(): Promise<void> {
    if (this.inFlight === 0 && !this.scheduled && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  private schedule(): void {
    if (this.inFlight >= this.maxInFlight || this.scheduled) return;
    this.scheduled = true;
    // setImmediate lets every request already read from the sockets join this batch.
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.inFlight++;
    const batch = this.queue.splice(0, maxBatch);
    if (this.queue.length > 0) this.schedule();
    try {
      await this.commit(batch);
      for (const p of batch) p.resolve();
    } catch {
      // One bad row must not fail its neighbours: retry them one transaction each.
      for (const p of batch) {
        try {
          await this.commit([p]);
          p.resolve();
        } catch (err) {
          p.reject(err);
        }
      }
    }
    this.inFlight--;
    this.onCommitted();
    if (this.queue.length > 0) {
      this.schedule();
    } else if (this.inFlight === 0 && !this.scheduled) {
      for (const done of this.idle.splice(0)) done();
    }
  }

  private async commit(batch: Pending[]): Promise<void> {
    if (this.thread) {
      // One compiled text per table, bound row by row: no per-batch compile (see compileTemplate).
      const t = (this.templates ??= writeTemplates(this.db));
      const deliveries = batch.flatMap((p) => p.write.deliveries);
      await this.thread.run([
        {
          sql: t.submission.sql,
          // An exact copy of the body: the request's bytes sit in a shared 8 KiB pool slab,
          // which the message to the thread would otherwise copy whole.
          rows: batch.map((p) =>
            t.submission.bind({
              ...p.write.submission,
              body: new Uint8Array(p.write.submission.body),
            }),
          ),
        },
        { sql: t.delivery.sql, rows: deliveries.map((d) => t.delivery.bind(d)) },
      ]);
      return;
    }
    await this.db.transaction().execute(async (trx: Transaction<Database>) => {
      await trx
        .insertInto('submissions')
        .values(batch.map((p) => p.write.submission))
        .execute();
      const deliveries = batch.flatMap((p) => p.write.deliveries);
      for (let i = 0; i < deliveries.length; i += deliveryChunk) {
        await trx
          .insertInto('deliveries')
          .values(deliveries.slice(i, i + deliveryChunk))
          .execute();
      }
    });
  }
}
