import type { Refusal } from './group-commit.js';
import type { IngestForm } from './forms.store.js';
import type { PushSubscriptionRow } from './push.store.js';
import type { TemplateSlot } from './statement-template.js';

// The messages between the event loop and the writer thread (writer-thread.ts ↔
// writer-thread.worker.ts). Plain data only: they cross by structured clone.

/** An error as the text that crosses back to the event loop (`fallback` when it has none). */
export function errorText(err: unknown, fallback: string): string {
  return err instanceof Error ? err.message : typeof err === 'string' ? err : fallback;
}

/** One SQL text run once per row of parameters (the thread prepares each text once). */
export interface Statement {
  sql: string;
  rows: readonly (readonly unknown[])[];
}

/** A compiled statement the thread binds each row to (see compileTemplate). */
export interface TemplatePlan {
  sql: string;
  slots: readonly TemplateSlot[];
}

/** One submission as the request delivered it; the thread parses and builds its rows. */
export interface IngestItem {
  /** Where this body ends in the batch's `bodies` (it starts where the previous one ended). */
  bodyEnd: number;
  org: string;
  /** Index into the batch's `forms`. */
  form: number;
  /** Index into the batch's `pushes` (the organisation's push subscriptions). */
  push: number;
  origin: string | null;
  referer: string | null;
  userAgent: string | null;
  ip: string;
  now: number;
  urlencoded?: boolean;
  formFields?: string;
  pow?: 'verified' | 'refused';
}

/** The ingests of one turn of the event loop, as `IngestBatchWire` describes. */
export interface IngestBatch {
  /** Sent with the first batch only; the thread keeps them. */
  templates?: { submission: TemplatePlan; delivery: TemplatePlan };
  forms: IngestForm[];
  pushes: Pick<PushSubscriptionRow, 'id' | 'endpoint'>[][];
  items: IngestItem[];
}

/**
 * An IngestBatch on the wire: its data as one JSON string and every raw body in one transferred
 * buffer. Cloning a string and moving a buffer cost a small part of what cloning the batch's
 * many small objects did on the event loop.
 */
export interface IngestBatchWire {
  json: string;
  bodies: ArrayBuffer;
}

/** Per submission of a batch: its id once stored, else null and the refusal in `refused`. */
export interface IngestResults {
  ids: (string | null)[];
  /**
   * By index: `refused` (the builder refused the body, before any write) or `failed` (the store
   * failed), and the message.
   */
  refused: Record<number, ['refused', Refusal] | ['failed', error: string]>;
}

/**
 * An ingest batch with its rows built (IngestRowBuilder, on the writer thread): each submission's
 * body is bound as a view of the transferred buffer.
 */
export interface BuiltBatch {
  rows: BuiltRows;
  /** Filled in for every submission; a stored one's id is taken back if its commit fails. */
  results: IngestResults;
}

/** `BuiltBatch.rows`: the two statements' texts, and per submission its index, row and outbox rows. */
export interface BuiltRows {
  sql: [submission: string, delivery: string];
  units: [item: number, submission: unknown[], deliveries: unknown[][]][];
}

/** To the writer thread. */
export interface WriterRequest {
  id: number;
  /** Each unit commits together with the others, or, if the group fails, alone. */
  units?: Statement[][];
  /** Raw ingests: the thread builds their rows and commits them with the units. */
  ingest?: IngestBatchWire;
  close?: true;
}

export interface WriterReply {
  id: number;
  /** Per unit: null once committed, else the error. */
  errors: (string | null)[];
  ingest: IngestResults;
}
