import type { Selectable } from 'kysely';
import type { SubmissionTable } from './schema.js';

// The webhook body of a delivery is not stored in the outbox row: it is put together from the
// submission row at each attempt (a third less written per ingest commit).

/** A webhook delivery's stored payload when its body is built from the submission row. */
export const WEBHOOK_PAYLOAD_FROM_SUBMISSION = '';

/** What webhookPayload reads of a stored submission (everything but the raw body). */
export type WebhookSource = Omit<Selectable<SubmissionTable>, 'body' | 'files'>;

/**
 * The webhook body of a submission (docs/forms.md#webhooks): `{ type, timestamp, data }` with the full
 * record minus the raw body, as it was at ingest (`read: false`), so every attempt, before or
 * after a restart, carries the same bytes.
 */
export function webhookPayload(s: WebhookSource): string {
  // What JSON.stringify({ type, timestamp, data: record }) gives, put together from the stored
  // texts: `answers` and `submitFields` are stored as JSON.stringify made them, so they go in as
  // they are instead of being parsed and stringified again on every attempt.
  const q = JSON.stringify;
  return (
    `{"type":"submission.created","timestamp":${q(s.receivedAt)},"data":{` +
    `"id":${q(s.id)},"org":${q(s.orgSlug)},"form":${q(s.formId)},"receivedAt":${q(s.receivedAt)},` +
    `"read":false,"spam":${q(Boolean(s.spam))},"preview":${q(s.preview)},` +
    `"answers":${s.answers},"submitFields":${s.submitFields ?? 'null'},` +
    `"origin":${q(s.origin)},"referer":${q(s.referer)},"userAgent":${q(s.userAgent)},` +
    `"ip":${q(s.ip)},"definitionVersion":${q(s.definitionVersion)}}}`
  );
}
