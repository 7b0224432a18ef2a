import type { ColumnType, Generated, Insertable } from 'kysely';
import type { PgArrayType } from '../postgres-group-insert.js';

// The outbox's two tables and the row every new delivery starts as (docs/architecture.md#the-outbox).
// Plain types and data only: the writer thread builds new rows with these too.

/**
 * The kinds of delivery, each with the prefix of its ids. A new kind starts here; the compiler
 * then asks for its sender (services/delivery/, DeliveryWorker's `senders`).
 */
export const DELIVERY_KINDS = {
  webhook: { idPrefix: 'msg' },
  push: { idPrefix: 'psh' },
  email: { idPrefix: 'eml' },
} as const;

export type DeliveryKind = keyof typeof DELIVERY_KINDS;

export interface DeliveryTable {
  id: string;
  submissionId: string;
  orgSlug: string;
  formId: string;
  /** `email`: target is one recipient address (docs/forms.md#email-notices). */
  kind: DeliveryKind;
  target: string;
  webhookSecret: string | null;
  pushSubscriptionId: string | null;
  /** The body to send; '' for a webhook whose body is built from its submission row. */
  payload: string;
  status: 'pending' | 'delivered' | 'failed' | 'dropped';
  attempts: number;
  /** Attempts since the delivery was last (re)queued: the index into the retry schedule. */
  roundAttempts: number;
  /** Epoch ms; bigint, which PostgreSQL drivers answer as a string. */
  nextAttemptAt: ColumnType<number | string, number, number>;
  lastStatus: number | null;
  lastError: string | null;
  deliveredAt: string | null;
  createdAt: string;
  /** The instance whose attempt holds the delivery (PostgreSQL claims); null when free. */
  leaseOwner: ColumnType<string | null, string | null | undefined, string | null>;
  /** Epoch ms the lease runs out: another instance may claim the delivery after it. */
  leaseUntil: ColumnType<number | null, number | null | undefined, number | null>;
  /** 1 for a test send (docs/forms.md#webhooks), which no submission redeliver touches. */
  test: ColumnType<number, number | undefined, number>;
}

export interface DeliveryAttemptTable {
  id: Generated<number>;
  deliveryId: string;
  attemptedAt: string;
  status: number | null;
  durationMs: number;
  error: string | null;
  /** What the attempt came to: delivered, retrying, failed or dropped; null before 0007. */
  outcome: ColumnType<string | null, string | null | undefined, string | null>;
  /** The first bytes of the receiver's answer, as defused text (see responseExcerpt). */
  response: ColumnType<string | null, string | null | undefined, string | null>;
}

/** A delivery as it is first written. */
export type NewDelivery = Insertable<DeliveryTable>;

/**
 * The columns a new delivery is written with, each with the PostgreSQL type of its array in a
 * group commit's `unnest` (PostgresOutbox.insertAfter); the key order is the statements' column
 * order on both databases.
 */
export const NEW_DELIVERY_COLUMNS = {
  id: 'text',
  submissionId: 'text',
  orgSlug: 'text',
  formId: 'text',
  kind: 'text',
  target: 'text',
  webhookSecret: 'text',
  pushSubscriptionId: 'text',
  payload: 'text',
  status: 'text',
  attempts: 'int4',
  roundAttempts: 'int4',
  nextAttemptAt: 'int8',
  lastStatus: 'int4',
  lastError: 'text',
  deliveredAt: 'text',
  createdAt: 'text',
  test: 'int4',
} as const satisfies Partial<Record<keyof DeliveryTable, PgArrayType>>;

export type NewDeliveryColumn = keyof typeof NEW_DELIVERY_COLUMNS;

/** The new row's columns in their statements' order. */
export const newDeliveryColumns = Object.keys(NEW_DELIVERY_COLUMNS) as NewDeliveryColumn[];

/**
 * A pending delivery of `submissionId`, due at `now`. Every delivery starts here: ingest's fan-out,
 * "not spam" and a webhook's test send. One object literal, no spread: this runs per delivery on
 * the writer thread's ingest path.
 */
export function newDelivery(
  fields: {
    kind: DeliveryKind;
    submissionId: string;
    orgSlug: string;
    formId: string;
    target: string;
    webhookSecret: string | null;
    pushSubscriptionId: string | null;
    payload: string;
    test?: boolean;
  },
  now: number,
  createdAt: string,
  newId: (prefix: string) => string,
): NewDelivery {
  return {
    id: newId(DELIVERY_KINDS[fields.kind].idPrefix),
    submissionId: fields.submissionId,
    orgSlug: fields.orgSlug,
    formId: fields.formId,
    kind: fields.kind,
    target: fields.target,
    webhookSecret: fields.webhookSecret,
    pushSubscriptionId: fields.pushSubscriptionId,
    payload: fields.payload,
    status: 'pending',
    attempts: 0,
    roundAttempts: 0,
    nextAttemptAt: now,
    lastStatus: null,
    lastError: null,
    deliveredAt: null,
    createdAt,
    test: fields.test === true ? 1 : 0,
  };
}
