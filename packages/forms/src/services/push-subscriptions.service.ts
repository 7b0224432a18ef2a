import type { PushStore } from '../store/push.store.js';
import { formsErrors } from '../errors.js';

/** The browser's PushSubscription JSON, as `subscribe` takes it. */
export interface PushSubscriptionInput {
  endpoint: string;
  expirationTime?: number | null | undefined;
  keys: { p256dh: string; auth: string };
}

/** An organisation's Web Push subscriptions (docs/forms.md#web-push). */
export class PushSubscriptionsService {
  constructor(
    private readonly push: PushStore,
    /** Plain http endpoints only where private targets are allowed (tests, LANs). */
    private readonly allowHttp: boolean,
    private readonly newId: (prefix: string) => string,
    private readonly now: () => number,
  ) {}

  /** Stores the subscription (replacing one with the same endpoint); 400 for a bad one. */
  async subscribe(org: string, input: PushSubscriptionInput): Promise<void> {
    const { endpoint, keys, expirationTime } = input;
    let url: URL;
    try {
      url = new URL(endpoint);
    } catch {
      throw formsErrors.error('PUSH_ENDPOINT_NOT_URL');
    }
    // Push services are HTTPS.
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && this.allowHttp)) {
      throw formsErrors.error('PUSH_ENDPOINT_NOT_HTTPS');
    }
    if (Buffer.from(keys.p256dh, 'base64url').length !== 65) {
      throw formsErrors.error('PUSH_KEY_INVALID');
    }
    if (Buffer.from(keys.auth, 'base64url').length !== 16) {
      throw formsErrors.error('PUSH_AUTH_INVALID');
    }
    await this.push.upsert({
      id: this.newId('sub'),
      orgSlug: org,
      endpoint,
      p256dh: keys.p256dh,
      auth: keys.auth,
      expirationTime: expirationTime ?? null,
      createdAt: new Date(this.now()).toISOString(),
    });
  }

  async unsubscribe(org: string, endpoint: string): Promise<void> {
    await this.push.remove(org, endpoint);
  }
}
