import { createHmac } from 'node:crypto';

/** The HMAC key of a webhook secret: base64 after a `whsec_` prefix, else its UTF-8 bytes. */
export function webhookKey(secret: string): Buffer {
  return secret.startsWith('whsec_')
    ? Buffer.from(secret.slice('whsec_'.length), 'base64')
    : Buffer.from(secret, 'utf8');
}

/** Standard Webhooks headers for one attempt (docs/forms.md#webhooks): same id, fresh timestamp. */
export function signWebhook(
  secret: string,
  id: string,
  body: string,
  nowSeconds: number,
): Record<string, string> {
  const timestamp = String(nowSeconds);
  const signature = createHmac('sha256', webhookKey(secret))
    .update(`${id}.${timestamp}.${body}`)
    .digest('base64');
  return {
    'webhook-id': id,
    'webhook-timestamp': timestamp,
    'webhook-signature': `v1,${signature}`,
  };
}
