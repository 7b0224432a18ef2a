// The writer thread (see store/writer-thread.ts): owns the SQLite connection ingest commits
// through, and builds the rows of the raw ingest bodies the event loop hands over
// (IngestRowBuilder). Like main.ts, it is where the parts meet: the store's rows are built with
// ingest's rules.
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import SQLite from 'better-sqlite3';
import { submissionBuilder } from './services/submission-builder.js';
import { IngestRowBuilder } from './store/ingest-rows.js';
import {
  errorText,
  type BuiltBatch,
  type IngestResults,
  type Statement,
  type WriterReply,
  type WriterRequest,
} from './store/writer-protocol.js';

if (!parentPort) throw new Error('writer-thread.worker runs only as a worker thread');
const port = parentPort;
const { file } = workerData as { file: string };
const rowBuilder = new IngestRowBuilder(submissionBuilder);

const db = new SQLite(file);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
db.pragma('busy_timeout = 5000');

const cache = new Map<string, SQLite.Statement>();
function prepare(sql: string): SQLite.Statement {
  let stmt = cache.get(sql);
  if (!stmt) {
    if (cache.size > 512) cache.clear();
    stmt = db.prepare(sql);
    cache.set(sql, stmt);
  }
  return stmt;
}

// A Uint8Array that crossed by structured clone binds as a blob only as a Buffer.
const bind = (p: unknown): unknown =>
  p instanceof Uint8Array && !Buffer.isBuffer(p)
    ? Buffer.from(p.buffer, p.byteOffset, p.byteLength)
    : p;
/** A statement that came in a message, its blobs made bindable (built ingest rows already are). */
const bindable = (s: Statement): Statement => ({
  sql: s.sql,
  rows: s.rows.map((r) => r.map(bind)),
});

const inTransaction = db.transaction((statements: readonly Statement[]) => {
  for (const s of statements) {
    if (s.rows.length === 0) continue;
    const stmt = prepare(s.sql);
    for (const row of s.rows) stmt.run(row);
  }
});

interface Unit {
  statements: Statement[];
  settle: (error: string | null) => void;
}

/** A built batch's submissions as units; a failed commit takes the submission's id back. */
function builtUnits(built: BuiltBatch, results: IngestResults, units: Unit[]): void {
  Object.assign(results, built.results);
  const { rows } = built;
  const [submissionSql, deliverySql] = rows.sql;
  for (const [item, row, deliveries] of rows.units) {
    units.push({
      statements: [
        { sql: submissionSql, rows: [row] },
        { sql: deliverySql, rows: deliveries },
      ],
      settle: (error) => {
        if (error === null) return;
        results.ids[item] = null;
        results.refused[item] = ['failed', error];
      },
    });
  }
}

// Group commit on this side: every unit of every message waiting when the thread turns to its
// port (handed in while the previous commit was syncing) shares one transaction and its one sync.
function commit(units: Unit[]): void {
  if (units.length === 0) return;
  try {
    inTransaction(units.flatMap((u) => u.statements));
    for (const u of units) u.settle(null);
  } catch (err) {
    if (units.length === 1) {
      units[0]?.settle(errorText(err, 'write failed'));
      return;
    }
    // One bad row must not fail the others: each in a transaction of its own.
    for (const u of units) {
      try {
        inTransaction(u.statements);
        u.settle(null);
      } catch (e) {
        u.settle(errorText(e, 'write failed'));
      }
    }
  }
}

function handle(messages: WriterRequest[]): void {
  let units: Unit[] = [];
  let replies: WriterReply[] = [];
  // Each answer is posted only after the commit holding all of its units returned.
  const flush = () => {
    commit(units);
    for (const r of replies) port.postMessage(r);
    units = [];
    replies = [];
  };
  for (const m of messages) {
    const reply: WriterReply = { id: m.id, errors: [], ingest: { ids: [], refused: {} } };
    if (m.close) {
      flush();
      db.close();
      port.postMessage(reply);
      continue;
    }
    (m.units ?? []).forEach((statements, i) => {
      reply.errors[i] = null;
      units.push({ statements: statements.map(bindable), settle: (e) => (reply.errors[i] = e) });
    });
    if (m.ingest) builtUnits(rowBuilder.build(m.ingest), reply.ingest, units);
    replies.push(reply);
  }
  flush();
}

// Everything waiting on the port joins the same group commit.
port.on('message', (first: WriterRequest) => {
  const messages = [first];
  for (let next; messages.length < 256 && (next = receiveMessageOnPort(port));) {
    messages.push(next.message as WriterRequest);
  }
  handle(messages);
});
