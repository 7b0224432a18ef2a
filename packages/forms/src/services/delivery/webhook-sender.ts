import type { DeliveryRow } from '../../store/outbox/outbox.js';
import type { AttemptResult, OutboundHttp } from './outbound-http.js';
import { signWebhook } from './webhook-signature.js';

/**
 * Sends one webhook attempt, signed anew (fresh timestamp, same id) each time; `links` adds the
 * files' signed links to the body first (docs/forms.md#file-uploads), fresh at each attempt.
 */
/** What a webhook attempt sends: the delivery's id (signed), body and receiver. */
export type WebhookAttempt = Pick<DeliveryRow, 'id' | 'payload' | 'target' | 'webhookSecret'>;

export function webhookSender(
  http: OutboundHttp,
  now: () => number,
  links: (payload: string) => Promise<string> = (payload) => Promise.resolve(payload),
): (row: WebhookAttempt) => Promise<AttemptResult> {
  return async (row) => {
    const body = await links(row.payload);
    return http.post({
      url: row.target,
      headers: {
        'content-type': 'application/json',
        'user-agent': 'Havn-Webhooks/1',
        ...signWebhook(row.webhookSecret ?? '', row.id, body, Math.floor(now() / 1000)),
      },
      body,
    });
  };
}
