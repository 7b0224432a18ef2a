import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** One SQL text run once per row of parameters (the thread prepares each text once). */
export interface Statement {
  sql: string;
  rows: readonly (readonly unknown[])[];
}

// The thread's code. Plain CommonJS evaluated in the worker so it runs the same from src/ (tests)
// and dist/ (production) without a build step of its own.
const threadSource = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
db.pragma('busy_timeout = 5000');
const cache = new Map();
function prepare(sql) {
  let stmt = cache.get(sql);
  if (!stmt) {
    if (cache.size > 512) cache.clear();
    stmt = db.prepare(sql);
    cache.set(sql, stmt);
  }
  return stmt;
}
const bind = (p) => (p instanceof Uint8Array && !Buffer.isBuffer(p) ? Buffer.from(p.buffer, p.byteOffset, p.byteLength) : p);
const inTransaction = db.transaction((statements) => {
  for (const s of statements) {
    const stmt = prepare(s.sql);
    for (const row of s.rows) stmt.run(row.map(bind));
  }
});
parentPort.on('message', (m) => {
  if (m.close) {
    db.close();
    parentPort.postMessage({ id: m.id, ok: true });
    return;
  }
  try {
    inTransaction(m.statements);
    parentPort.postMessage({ id: m.id, ok: true });
  } catch (err) {
    parentPort.postMessage({ id: m.id, ok: false, error: String((err && err.message) || err) });
  }
});
`;

/**
 * A thread that owns the SQLite connection ingest commits through. The commit's sync
 * (`synchronous=FULL`) then blocks this thread, not the event loop: requests keep being parsed
 * and gathered into the next group commit while the previous one reaches the disk.
 */
export class WriterThread {
  private readonly worker: Worker;
  private readonly waiting = new Map<number, { resolve: () => void; reject: (e: Error) => void }>();
  private nextId = 0;
  private busy = false;
  private queue: {
    statements: readonly Statement[];
    resolve: () => void;
    reject: (e: Error) => void;
  }[] = [];
  private idle: (() => void)[] = [];

  constructor(file: string) {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    this.worker = new Worker(threadSource, { eval: true, workerData: { file, driver } });
    this.worker.on('message', (m: { id: number; ok: boolean; error?: string }) => {
      const w = this.waiting.get(m.id);
      this.waiting.delete(m.id);
      if (m.ok) w?.resolve();
      else w?.reject(new Error(m.error ?? 'write failed'));
    });
    this.worker.on('error', (err) => {
      for (const w of this.waiting.values()) w.reject(err);
      this.waiting.clear();
    });
  }

  /**
   * Runs the statements in one transaction; resolves after its commit is synced. Work handed in
   * while a commit is in progress (ingest batches, delivery records) shares the next commit.
   */
  run(statements: readonly Statement[]): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ statements, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    if (this.busy) return;
    if (this.queue.length === 0) {
      for (const done of this.idle.splice(0)) done();
      return;
    }
    const batch = this.queue.splice(0);
    this.busy = true;
    this.send({ statements: batch.flatMap((b) => b.statements) })
      .then(
        () => {
          for (const b of batch) b.resolve();
        },
        (err: unknown) => {
          for (const b of batch) b.reject(err as Error);
        },
      )
      .finally(() => {
        this.busy = false;
        this.pump();
      });
  }

  async close(): Promise<void> {
    if (this.busy || this.queue.length > 0) {
      await new Promise<void>((resolve) => this.idle.push(resolve));
    }
    await this.send({ close: true });
    await this.worker.terminate();
  }

  private send(message: object): Promise<void> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ id, ...message });
    });
  }
}
