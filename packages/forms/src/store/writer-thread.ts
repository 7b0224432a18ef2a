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
const { parentPort, receiveMessageOnPort, workerData } = require('node:worker_threads');
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
const reply = (m, err) =>
  parentPort.postMessage(err === undefined ? { id: m.id, ok: true } : { id: m.id, ok: false, error: String((err && err.message) || err) });
// Group commit on this side: every message waiting when the thread turns to its port (handed in
// while the previous commit was syncing) shares one transaction and its one sync. Each answer is
// posted only after the commit holding it returned.
function commit(group) {
  if (group.length === 0) return;
  try {
    inTransaction(group.flatMap((m) => m.statements));
    for (const m of group) reply(m);
  } catch (err) {
    if (group.length === 1) return reply(group[0], err);
    // One bad message must not fail the others: each in a transaction of its own.
    for (const m of group) {
      try {
        inTransaction(m.statements);
        reply(m);
      } catch (e) {
        reply(m, e);
      }
    }
  }
}
parentPort.on('message', (first) => {
  const messages = [first];
  for (let next; messages.length < 256 && (next = receiveMessageOnPort(parentPort)); ) messages.push(next.message);
  let group = [];
  for (const m of messages) {
    if (!m.close) {
      group.push(m);
      continue;
    }
    commit(group);
    group = [];
    db.close();
    reply(m);
  }
  commit(group);
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
  private idle: (() => void)[] = [];

  constructor(file: string) {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    this.worker = new Worker(threadSource, { eval: true, workerData: { file, driver } });
    this.worker.on('message', (m: { id: number; ok: boolean; error?: string }) => {
      const w = this.waiting.get(m.id);
      this.waiting.delete(m.id);
      if (m.ok) w?.resolve();
      else w?.reject(new Error(m.error ?? 'write failed'));
      if (this.waiting.size === 0) for (const done of this.idle.splice(0)) done();
    });
    this.worker.on('error', (err) => {
      for (const w of this.waiting.values()) w.reject(err);
      this.waiting.clear();
      for (const done of this.idle.splice(0)) done();
    });
  }

  /**
   * Runs the statements in one transaction; resolves after its commit is synced. The work is
   * posted at once, not held back until the previous commit answered: the thread starts the next
   * commit straight after the last one, with everything handed in meanwhile (ingest batches,
   * delivery records) sharing it, without waiting for this event loop to turn.
   */
  run(statements: readonly Statement[]): Promise<void> {
    return this.send({ statements });
  }

  async close(): Promise<void> {
    if (this.waiting.size > 0) {
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
