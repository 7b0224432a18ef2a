// A webhook's delivery log, a test send and one delivery's redeliver (docs/forms.md#webhooks), and
// the words the log shows for them.
import type { Api } from '../api.js';

// One delivery to a webhook with its attempts, newest first, as the server answers it.
export type {
  DeliveryAttemptAnswer as DeliveryAttempt,
  WebhookDeliveryAnswer as WebhookDelivery,
} from '@havn/forms/wire';
import type {
  DeliveryAttemptAnswer as DeliveryAttempt,
  WebhookDeliveryAnswer as WebhookDelivery,
} from '@havn/forms/wire';

const formPath = (form: string) => `/forms/${encodeURIComponent(form)}`;

/** A page of the form's deliveries to `url`, newest first; `before` (a delivery id) pages back. */
export async function webhookDeliveries(
  api: Api,
  form: string,
  url: string,
  limit: number,
  before?: string,
): Promise<WebhookDelivery[]> {
  const query = new URLSearchParams({ url, limit: String(limit) });
  if (before !== undefined) query.set('before', before);
  const path = `${formPath(form)}/webhooks/deliveries?${query.toString()}`;
  return (await api.json<{ deliveries: WebhookDelivery[] }>(path)).deliveries;
}

/** Sends a test now; the server answers once the receiver has (or the attempt failed). */
export function sendWebhookTest(api: Api, form: string, url: string): Promise<WebhookDelivery> {
  return api.json(`${formPath(form)}/webhooks/test`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ url }),
  });
}

/** Queues one delivery again, to its own target only. */
export async function redeliverOne(api: Api, form: string, id: string): Promise<void> {
  await api.json(`${formPath(form)}/deliveries/${encodeURIComponent(id)}/redeliver`, {
    method: 'POST',
  });
}

/** A delivery's state in a word: pending is "Queued" before its first attempt, else "Retrying". */
export function stateLabel(d: WebhookDelivery): string {
  if (d.status === 'pending') return d.attempts === 0 ? 'Queued' : 'Retrying';
  return d.status === 'delivered' ? 'Delivered' : d.status === 'failed' ? 'Failed' : 'Dropped';
}

export const OUTCOME_LABEL: Record<DeliveryAttempt['outcome'], string> = {
  delivered: 'Delivered',
  retrying: 'Failed, retrying',
  failed: 'Failed',
  dropped: 'Dropped',
};

/** What the receiver answered: "HTTP 500", or why there was no answer. */
export function answerText(a: DeliveryAttempt): string {
  return a.status !== null ? `HTTP ${String(a.status)}` : (a.error ?? 'no answer');
}

/** What a finished test send came to, as one sentence. */
export function testOutcome(d: WebhookDelivery): { ok: boolean; text: string } {
  const a = d.attemptLog[0];
  const carried =
    d.submissionId === null
      ? 'It carried a sample submission made from the definition (the form has none yet).'
      : 'It carried the latest submission, marked as a test.';
  if (d.status === 'delivered' && a) {
    return {
      ok: true,
      text: `Test delivered: HTTP ${String(a.status)} in ${String(a.durationMs)} ms. ${carried}`,
    };
  }
  const why = a ? (a.status !== null ? (a.error ?? `HTTP ${String(a.status)}`) : a.error) : null;
  return { ok: false, text: `Test failed: ${why ?? 'no answer'}. ${carried}` };
}
