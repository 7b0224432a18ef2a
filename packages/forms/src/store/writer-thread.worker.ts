// The writer thread (see WriterThread): owns the SQLite connection ingest commits through, and
// turns each raw ingest body into its rows here, off the event loop that serves the requests.
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import SQLite from 'better-sqlite3';
import { HttpError } from '@havn/shared';
import { createIdGenerator } from '../ids.js';
import { buildSubmissionWrite, parseIngestBody } from '../services/ingest.service.js';
import { bindSlots } from './statement-template.js';
import type {
  IngestBatch,
  IngestBatchWire,
  IngestResults,
  Statement,
  TemplatePlan,
  WriterReply,
  WriterRequest,
} from './writer-protocol.js';

if (!parentPort) throw new Error('writer-thread.worker runs only as a worker thread');
const port = parentPort;
const { file } = workerData as { file: string };

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

const inTransaction = db.transaction((statements: readonly Statement[]) => {
  for (const s of statements) {
    if (s.rows.length === 0) continue;
    const stmt = prepare(s.sql);
    for (const row of s.rows) stmt.run(row.map(bind));
  }
});

// Ids of the submissions and deliveries built here: time-ordered by each request's arrival time.
let clock = 0;
const newId = createIdGenerator(() => clock);

interface Unit {
  statements: Statement[];
  settle: (error: string | null) => void;
}

const message = (err: unknown): string =>
  err instanceof Error ? err.message : typeof err === 'string' ? err : 'write failed';

let templates: { submission: TemplatePlan; delivery: TemplatePlan } | undefined;

/** The batch's submissions as units; a body refused (bad JSON, bad answers) gets its 400 now. */
function ingestUnits(wire: IngestBatchWire, results: IngestResults, units: Unit[]): void {
  const batch = JSON.parse(wire.json) as IngestBatch;
  templates = batch.templates ?? templates;
  if (!templates) throw new Error('ingest batch before the statement templates');
  const { submission, delivery } = templates;
  let start = 0;
  batch.items.forEach((item, i) => {
    const raw = Buffer.from(wire.bodies, start, item.bodyEnd - start);
    start = item.bodyEnd;
    results.ids[i] = null;
    try {
      clock = item.now;
      const form = batch.forms[item.form];
      if (!form) throw new Error('ingest item without its form');
      const { id, write } = buildSubmissionWrite({
        org: item.org,
        form,
        raw,
        parsed: parseIngestBody(raw),
        origin: item.origin,
        referer: item.referer,
        userAgent: item.userAgent,
        ip: item.ip,
        now: item.now,
        newId,
        pushSubscriptions: batch.pushes[item.push] ?? [],
      });
      units.push({
        statements: [
          { sql: submission.sql, rows: [bindSlots(submission.slots, write.submission)] },
          { sql: delivery.sql, rows: write.deliveries.map((d) => bindSlots(delivery.slots, d)) },
        ],
        settle: (error) => {
          if (error === null) results.ids[i] = id;
          else results.refused[i] = [500, error];
        },
      });
    } catch (err) {
      results.refused[i] =
        err instanceof HttpError ? [err.status, err.message] : [500, message(err)];
    }
  });
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
      units[0]?.settle(message(err));
      return;
    }
    // One bad row must not fail the others: each in a transaction of its own.
    for (const u of units) {
      try {
        inTransaction(u.statements);
        u.settle(null);
      } catch (e) {
        u.settle(message(e));
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
      units.push({ statements, settle: (e) => (reply.errors[i] = e) });
    });
    if (m.ingest) ingestUnits(m.ingest, reply.ingest, units);
    replies.push(reply);
  }
  flush();
}

port.on('message', (first: WriterRequest) => {
  const messages = [first];
  for (let next; messages.length < 256 && (next = receiveMessageOnPort(port));) {
    messages.push(next.message as WriterRequest);
  }
  handle(messages);
});
