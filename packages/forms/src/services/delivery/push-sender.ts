import webpush from 'web-push';
import type { DeliveryRow } from '../../store/outbox/outbox.js';
import type { PushStore } from '../../store/push.store.js';
import type { VapidKeys } from '../vapid-keys.js';
import type { AttemptResult, OutboundHttp } from './outbound-http.js';

/**
 * Sends one Web Push message: web-push builds the VAPID Authorization header and the aes128gcm
 * body (RFC 8291/8292); we send it ourselves through the guarded agent. 404/410 means the
 * subscription is gone (docs/forms.md#web-push).
 */
export function pushSender(deps: {
  push: PushStore;
  http: OutboundHttp;
  vapid: VapidKeys;
  subject: string;
}): (row: DeliveryRow) => Promise<AttemptResult> {
  return async (row) => {
    const sub = row.pushSubscriptionId ? await deps.push.get(row.pushSubscriptionId) : undefined;
    if (!sub) return { ok: false, status: null, error: 'subscription removed', drop: true };
    let details: ReturnType<typeof webpush.generateRequestDetails>;
    try {
      details = webpush.generateRequestDetails(
        { endpoint: sub.endpoint, keys: { p256dh: sub.p256dh, auth: sub.auth } },
        row.payload,
        {
          vapidDetails: { subject: deps.subject, ...deps.vapid },
          TTL: 24 * 3600,
          contentEncoding: 'aes128gcm',
        },
      );
    } catch (err) {
      return { ok: false, status: null, error: (err as Error).message, drop: true };
    }
    const headers: Record<string, string | number> = { ...details.headers };
    const result = await deps.http.post({
      url: details.endpoint,
      headers,
      body: details.body ?? Buffer.alloc(0),
    });
    if (result.status === 404 || result.status === 410) {
      await deps.push.removeById(sub.id);
      return { ...result, drop: true };
    }
    return result;
  };
}
