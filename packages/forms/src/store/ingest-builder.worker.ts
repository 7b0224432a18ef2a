// The ingest builder thread (see WriterThread): turns each batch of raw ingest bodies into the rows
// to insert, off the event loop that serves the requests and off the writer thread, whose commits
// are the one step every submission waits for in turn. Refusals (bad JSON, bad answers: 400) are
// decided here; the rows go straight to the writer, which answers the event loop.
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { HttpError } from '@havn/shared';
import { createIdGenerator } from '../ids.js';
import { buildSubmissionWrite, parseIngestBody } from '../services/ingest.service.js';
import { bindSlots } from './statement-template.js';
import type {
  BuilderRequest,
  BuiltRows,
  IngestBatch,
  IngestResults,
  TemplatePlan,
  WriterRequest,
} from './writer-protocol.js';

if (!parentPort) throw new Error('ingest-builder.worker runs only as a worker thread');
const { writerPort } = workerData as { writerPort: MessagePort };

let templates: { submission: TemplatePlan; delivery: TemplatePlan } | undefined;
let bodyParam = -1;

// Ids of the submissions and deliveries built here: time-ordered by each request's arrival time.
let clock = 0;
const newId = createIdGenerator(() => clock);

const message = (err: unknown): string =>
  err instanceof Error ? err.message : typeof err === 'string' ? err : 'ingest failed';

function build({ id, ingest }: BuilderRequest): WriterRequest {
  const batch = JSON.parse(ingest.json) as IngestBatch;
  if (batch.templates) {
    templates = batch.templates;
    bodyParam = templates.submission.slots.findIndex((s) => 'key' in s && s.key === 'body');
  }
  if (!templates) throw new Error('ingest batch before the statement templates');
  const { submission, delivery } = templates;
  const results: IngestResults = { ids: [], refused: {} };
  const rows: BuiltRows = { sql: [submission.sql, delivery.sql], units: [] };
  let start = 0;
  batch.items.forEach((item, i) => {
    const raw = Buffer.from(ingest.bodies, start, item.bodyEnd - start);
    const body = [start, item.bodyEnd];
    start = item.bodyEnd;
    results.ids[i] = null;
    try {
      clock = item.now;
      const form = batch.forms[item.form];
      if (!form) throw new Error('ingest item without its form');
      const built = buildSubmissionWrite({
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
      const row = bindSlots(submission.slots, { ...built.write.submission, body: null });
      row[bodyParam] = body;
      rows.units.push([i, row, built.write.deliveries.map((d) => bindSlots(delivery.slots, d))]);
      results.ids[i] = built.id;
    } catch (err) {
      results.refused[i] =
        err instanceof HttpError ? [err.status, err.message] : [500, message(err)];
    }
  });
  return {
    id,
    built: { rows, bodies: ingest.bodies, bodyParam, results },
  };
}

const empty: BuiltRows = { sql: ['', ''], units: [] };

parentPort.on('message', (m: BuilderRequest) => {
  let request: WriterRequest;
  try {
    request = build(m);
  } catch {
    // A batch that cannot be read stores nothing: each of its submissions answers 500.
    const results: IngestResults = { ids: [], refused: {} };
    request = {
      id: m.id,
      built: { rows: empty, bodies: m.ingest.bodies, bodyParam: 0, results },
    };
  }
  writerPort.postMessage(request, request.built ? [request.built.bodies] : []);
});
