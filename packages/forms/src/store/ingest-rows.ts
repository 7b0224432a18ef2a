// Turns a batch of raw ingest bodies into the rows to insert (on the writer thread; see
// WriterThread). Refusals (bad JSON, bad answers) are decided here, before any write.
import { createIdGenerator } from '../ids.js';
import type { SubmissionBuilder } from './group-commit.js';
import { bindSlots } from './statement-template.js';
import {
  errorText,
  type BuiltBatch,
  type BuiltRows,
  type IngestBatch,
  type IngestBatchWire,
  type IngestResults,
  type TemplatePlan,
} from './writer-protocol.js';

const empty: BuiltRows = { sql: ['', ''], units: [] };

/** Keeps the statement templates of the first batch and the id generator across batches. */
export class IngestRowBuilder {
  private templates: { submission: TemplatePlan; delivery: TemplatePlan } | undefined;
  // Ids of the submissions and deliveries built here: time-ordered by each request's arrival.
  private clock = 0;
  private readonly newId = createIdGenerator(() => this.clock);

  constructor(private readonly buildSubmission: SubmissionBuilder) {}

  /** The batch's rows and answers; a batch that cannot be read stores nothing (500s). */
  build(ingest: IngestBatchWire): BuiltBatch {
    try {
      return this.rows(ingest);
    } catch {
      const results: IngestResults = { ids: [], refused: {} };
      return { rows: empty, results };
    }
  }

  private rows(ingest: IngestBatchWire): BuiltBatch {
    const batch = JSON.parse(ingest.json) as IngestBatch;
    if (batch.templates) this.templates = batch.templates;
    if (!this.templates) throw new Error('ingest batch before the statement templates');
    const { submission, delivery } = this.templates;
    const results: IngestResults = { ids: [], refused: {} };
    const rows: BuiltRows = { sql: [submission.sql, delivery.sql], units: [] };
    let start = 0;
    batch.items.forEach((item, i) => {
      // A view of the transferred buffer: the row binds it as the stored body without a copy.
      const raw = Buffer.from(ingest.bodies, start, item.bodyEnd - start);
      start = item.bodyEnd;
      results.ids[i] = null;
      try {
        this.clock = item.now;
        const form = batch.forms[item.form];
        if (!form) throw new Error('ingest item without its form');
        const built = this.buildSubmission.build(
          {
            org: item.org,
            form,
            raw,
            origin: item.origin,
            referer: item.referer,
            userAgent: item.userAgent,
            ip: item.ip,
            now: item.now,
            ...(item.urlencoded === true ? { urlencoded: true } : {}),
            ...(item.formFields !== undefined ? { formFields: item.formFields } : {}),
            ...(item.pow !== undefined ? { pow: item.pow } : {}),
            pushSubscriptions: batch.pushes[item.push] ?? [],
          },
          this.newId,
        );
        rows.units.push([
          i,
          bindSlots(submission.slots, built.write.submission),
          built.write.deliveries.map((d) => bindSlots(delivery.slots, d)),
        ]);
        results.ids[i] = built.id;
      } catch (err) {
        const reason = this.buildSubmission.refusal(err);
        results.refused[i] =
          reason !== undefined ? ['refused', reason] : ['failed', errorText(err, 'ingest failed')];
      }
    });
    return { rows, results };
  }
}
