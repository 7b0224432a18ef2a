import type { DeliveryRow } from '../../store/deliveries.store.js';
import type { AttemptResult, OutboundHttp } from './outbound-http.js';
import { signWebhook } from './webhook-signature.js';

/** Sends one webhook attempt, signed anew (fresh timestamp, same id) each time. */
export function webhookSender(
  http: OutboundHttp,
  now: () => number,
): (row: DeliveryRow) => Promise<AttemptResult> {
  return (row) =>
    http.post({
      url: row.target,
      headers: {
        'content-type': 'application/json',
        'user-agent': 'Havn-Webhooks/1',
        ...signWebhook(row.webhookSecret ?? '', row.id, row.payload, Math.floor(now() / 1000)),
      },
      body: row.payload,
    });
}
