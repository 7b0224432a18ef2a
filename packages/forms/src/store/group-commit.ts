import type { Insertable, Kysely } from 'kysely';
import { createIdGenerator } from '../ids.js';
import type { FileAnswer } from '../wire/submissions.js';
import type { IngestForm } from './forms.store.js';
import type { Outbox } from './outbox/outbox.js';
import type { PostgresOutbox } from './outbox/postgres-outbox.js';
import type { NewDelivery } from './outbox/tables.js';
import { insertSubmissions } from './postgres-group-insert.js';
import { RECORD_COLUMNS } from './submissions.store.js';
import type { PushSubscriptionRow } from './push.store.js';
import type { Database, SubmissionTable } from './schema.js';
import { compileTemplate, type StatementTemplate } from './statement-template.js';
import type { IngestBatch, IngestBatchWire, IngestItem, Statement } from './writer-protocol.js';
import type { WriterThread } from './writer-thread.js';

export interface SubmissionWrite {
  submission: Insertable<SubmissionTable>;
  /** The outbox rows, in the same transaction as the submission (docs/forms.md#webhooks). */
  deliveries: NewDelivery[];
}

/** One submission as its request delivered it: ingest builds its rows from these. */
export interface IngestRequest {
  org: string;
  form: IngestForm;
  pushSubscriptions: readonly Pick<PushSubscriptionRow, 'id' | 'endpoint'>[];
  /** The body bytes exactly as received, not parsed yet. */
  raw: Buffer;
  /** The body is a plain HTML form's (application/x-www-form-urlencoded), not JSON. */
  urlencoded?: boolean;
  /** A multipart body's text fields as urlencoded text, read in place of the raw body. */
  formFields?: string;
  /**
   * The files received for `file` questions, already checked (docs/forms.md#file-uploads); only
   * built on the event loop, never sent to the writer thread.
   */
  files?: Readonly<Record<string, FileAnswer[]>>;
  /**
   * A "pow" form's proof-of-work check, made before the write (docs/forms.md#spam): `refused`
   * stores the submission as spam; either way the solution is not kept in `submitFields`.
   */
  pow?: 'verified' | 'refused';
  origin: string | null;
  referer: string | null;
  userAgent: string | null;
  ip: string;
  now: number;
}

/**
 * Ingest's own rules (services/submission-builder.ts), handed to the store by whoever opens it:
 * `build` makes one submission's rows from its request, or throws; `refusal` tells an error that
 * refuses the submission for its body (its text) from a failure (undefined).
 */
export interface SubmissionBuilder {
  build(request: IngestRequest, newId: (prefix: string) => string): BuiltSubmission;
  refusal(err: unknown): Refusal | undefined;
}

/** Why the builder refused a body: the error's catalogue code and the client's text. */
export interface Refusal {
  code: string;
  message: string;
}

export interface BuiltSubmission {
  id: string;
  write: SubmissionWrite;
}

/**
 * The store's answer to a submission its builder refused (bad JSON, bad answers): nothing was
 * stored. Whoever called `ingest` decides what that means to its caller.
 */
export class SubmissionRefused extends Error {
  override readonly name = 'SubmissionRefused';

  constructor(readonly refusal: Refusal) {
    super(refusal.message);
  }
}

const submissionColumns = [
  ...RECORD_COLUMNS,
  'body',
  'files',
] as const satisfies readonly (keyof SubmissionTable)[];

function submissionTemplate(db: Kysely<Database>) {
  return compileTemplate(submissionColumns, (v) =>
    db
      .insertInto('submissions')
      .values(v as unknown as Insertable<SubmissionTable>)
      .compile(),
  );
}

/**
 * How group commits run: on the writer thread (SQLite), or on `db` (PostgreSQL) as one statement
 * each, up to `inFlight` at once. Either way each commit writes its outbox rows with the outbox's
 * own new-row statement, in the commit's transaction.
 */
export type GroupCommits =
  { thread: WriterThread; outbox: Outbox } | { inFlight: number; outbox: PostgresOutbox };

type Pending =
  | {
      write: SubmissionWrite;
      request?: undefined;
      resolve: (id: string) => void;
      reject: (err: unknown) => void;
    }
  | {
      write?: undefined;
      request: IngestRequest;
      resolve: (id: string) => void;
      reject: (err: unknown) => void;
    };

const maxBatch = 256;
const burstQuietMs = 50;

/**
 * Group commit (docs/forms.md#durability-and-throughput): submissions that arrive while a commit
 * is in progress wait for the next one, and all of them share that one transaction and its one
 * sync. `write` and `ingest` resolve only after the commit returned, that is after the WAL was
 * synced (SQLite's `synchronous=FULL`, PostgreSQL's `synchronous_commit=on`).
 *
 * With the writer thread, each turn of the event loop hands its batch over in one message (up to
 * `maxInFlight` batches in flight), ingest bodies as raw bytes the thread parses and builds rows
 * from, and the thread folds every batch waiting for it into its next commit; without it
 * (PostgreSQL), each body is parsed here and each batch is one statement.
 */
export class GroupCommitWriter {
  private queue: Pending[] = [];
  private inFlight = 0;
  private scheduled = false;
  private idle: (() => void)[] = [];
  private submissionInsert: StatementTemplate<(typeof submissionColumns)[number]> | undefined;
  private clock = 0;
  private lastArrival = -Infinity;
  private templatesSent = false;
  private readonly newId = createIdGenerator(() => this.clock);

  private readonly thread: WriterThread | undefined;
  private readonly maxInFlight: number;

  /**
   * With a `thread` the commits run off the event loop (SQLite); otherwise each is one
   * PostgreSQL statement on `db`, up to `inFlight` at once.
   */
  constructor(
    private readonly db: Kysely<Database>,
    private readonly onCommitted: () => void,
    private readonly build: SubmissionBuilder,
    private readonly commits: GroupCommits,
  ) {
    this.thread = 'thread' in commits ? commits.thread : undefined;
    this.maxInFlight = 'thread' in commits ? 8 : commits.inFlight;
  }

  /** Stores rows already built. */
  write(write: SubmissionWrite): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({
        write,
        resolve: () => {
          resolve();
        },
        reject,
      });
      this.schedule();
    });
  }

  /**
   * Parses and stores one submission (with its outbox rows); resolves with its id once durable.
   * A body the builder refuses rejects with a SubmissionRefused, and stores nothing.
   */
  ingest(request: IngestRequest): Promise<string> {
    if (!this.thread) {
      this.clock = request.now;
      let built: BuiltSubmission;
      try {
        built = this.build.build(request, this.newId);
      } catch (err) {
        const reason = this.build.refusal(err);
        return Promise.reject(
          reason === undefined ? (err as Error) : new SubmissionRefused(reason),
        );
      }
      const { id, write } = built;
      return this.write(write).then(() => id);
    }
    return new Promise((resolve, reject) => {
      this.queue.push({ request, resolve, reject });
      this.schedule();
    });
  }

  /**
   * Whether an ingest burst is going on: submissions wait for or are in a commit, or arrived in
   * the last `burstQuietMs`. Between two group commits of a burst the queue is often empty for a
   * moment (the clients have their answers and are sending the next requests); that is no lull.
   */
  busy(): boolean {
    return (
      this.inFlight > 0 ||
      this.queue.length > 0 ||
      performance.now() - this.lastArrival < burstQuietMs
    );
  }

  /** Resolves once every queued write has been committed or failed. */
  drained(): Promise<void> {
    if (this.inFlight === 0 && !this.scheduled && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  private schedule(): void {
    this.lastArrival = performance.now();
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
      if ('thread' in this.commits) {
        await this.commitOnThread(this.commits.thread, batch);
      } else {
        await this.commitHere(this.commits.outbox, batch);
      }
    } catch (err) {
      for (const p of batch) p.reject(err);
    }
    this.inFlight--;
    this.onCommitted();
    if (this.queue.length > 0) {
      this.schedule();
    } else if (this.inFlight === 0 && !this.scheduled) {
      for (const done of this.idle.splice(0)) done();
    }
  }

  /** One message to the thread; it answers per write and per submission. */
  private async commitOnThread(thread: WriterThread, batch: Pending[]): Promise<void> {
    // One compiled text per table, bound row by row: no per-batch compile (see compileTemplate).
    const t = this.templates();
    const writes: { p: Pending; write: SubmissionWrite }[] = [];
    const ingests: { p: Pending; request: IngestRequest }[] = [];
    for (const p of batch) {
      if (p.write) writes.push({ p, write: p.write });
      else ingests.push({ p, request: p.request });
    }
    const units = writes.map(({ write }): Statement[] => [
      {
        sql: t.submission.sql,
        // An exact copy of the body: the request's bytes may sit in a shared pool slab, which
        // the message to the thread would otherwise copy whole.
        rows: [
          t.submission.bind({ ...write.submission, body: new Uint8Array(write.submission.body) }),
        ],
      },
      { sql: t.delivery.sql, rows: write.deliveries.map((d) => t.delivery.bind(d)) },
    ]);
    const reply = await thread.commit(
      units,
      ingests.length > 0 ? this.ingestBatch(ingests.map((i) => i.request)) : undefined,
    );
    writes.forEach(({ p }, i) => {
      const error = reply.errors[i];
      if (error) p.reject(new Error(error));
      else p.resolve('');
    });
    ingests.forEach(({ p }, i) => {
      const id = reply.ingest.ids[i];
      const result = reply.ingest.refused[i] ?? ['failed', 'ingest failed'];
      if (id) p.resolve(id);
      else if (result[0] === 'refused') p.reject(new SubmissionRefused(result[1]));
      else p.reject(new Error(result[1]));
    });
  }

  /** The submission's insert and the outbox's new row, each compiled once. */
  private templates(): {
    submission: StatementTemplate<(typeof submissionColumns)[number]>;
    delivery: StatementTemplate<string>;
  } {
    this.submissionInsert ??= submissionTemplate(this.db);
    return { submission: this.submissionInsert, delivery: this.commits.outbox.newRow };
  }

  /** The ingests as one message: every body copied into one buffer the message transfers. */
  private ingestBatch(requests: IngestRequest[]): IngestBatchWire {
    const t = this.templates();
    let size = 0;
    for (const r of requests) size += r.raw.length;
    const bodies = new ArrayBuffer(size);
    const bytes = new Uint8Array(bodies);
    const forms: IngestForm[] = [];
    const formIndex = new Map<IngestForm, number>();
    const pushes: Pick<PushSubscriptionRow, 'id' | 'endpoint'>[][] = [];
    const pushIndex = new Map<readonly unknown[], number>();
    let end = 0;
    const items = requests.map((r): IngestItem => {
      bytes.set(r.raw, end);
      end += r.raw.length;
      // The cached form and subscription list are the same objects request after request: each
      // crosses once per batch, and only what the rows need of it.
      let form = formIndex.get(r.form);
      if (form === undefined) {
        form =
          forms.push({
            id: r.form.id,
            definitionVersion: r.form.definitionVersion,
            webhooks: r.form.webhooks.map((w) => ({ url: w.url, secret: w.secret })),
            arrayAnswers: [...r.form.arrayAnswers],
            choiceLabels: r.form.choiceLabels,
            logic: r.form.logic,
            notify: [...r.form.notify],
            uploads: r.form.uploads,
          }) - 1;
        formIndex.set(r.form, form);
      }
      let push = pushIndex.get(r.pushSubscriptions);
      if (push === undefined) {
        push =
          pushes.push(r.pushSubscriptions.map((s) => ({ id: s.id, endpoint: s.endpoint }))) - 1;
        pushIndex.set(r.pushSubscriptions, push);
      }
      return {
        bodyEnd: end,
        org: r.org,
        form,
        push,
        origin: r.origin,
        referer: r.referer,
        userAgent: r.userAgent,
        ip: r.ip,
        now: r.now,
        ...(r.urlencoded === true ? { urlencoded: true } : {}),
        ...(r.formFields !== undefined ? { formFields: r.formFields } : {}),
        ...(r.pow !== undefined ? { pow: r.pow } : {}),
      };
    });
    const batch: IngestBatch = { forms, pushes, items };
    if (!this.templatesSent) {
      this.templatesSent = true;
      const plan = (x: { sql: string; slots: StatementTemplate<string>['slots'] }) => ({
        sql: x.sql,
        slots: x.slots,
      });
      batch.templates = { submission: plan(t.submission), delivery: plan(t.delivery) };
    }
    return { json: JSON.stringify(batch), bodies };
  }

  /** One statement; if it fails, each write again alone so one bad row fails alone. */
  private async commitHere(outbox: PostgresOutbox, batch: Pending[]): Promise<void> {
    const writes = batch.flatMap((p) => (p.write ? [{ p, write: p.write }] : []));
    try {
      await this.transaction(
        outbox,
        writes.map((w) => w.write),
      );
      for (const { p } of writes) p.resolve('');
    } catch {
      for (const { p, write } of writes) {
        try {
          await this.transaction(outbox, [write]);
          p.resolve('');
        } catch (err) {
          p.reject(err);
        }
      }
    }
  }

  private async transaction(outbox: PostgresOutbox, writes: SubmissionWrite[]): Promise<void> {
    // Only PostgreSQL commits here (SQLite commits on its writer thread): one statement, its own
    // transaction, so one round trip per group commit; the outbox adds its rows to it.
    const parameters: unknown[] = [];
    const submissions = insertSubmissions(
      writes.map((w) => w.submission),
      parameters,
    );
    await this.db.executeQuery(
      outbox.insertAfter(
        submissions,
        writes.flatMap((w) => w.deliveries),
        parameters,
      ),
    );
  }
}
