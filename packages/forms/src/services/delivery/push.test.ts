import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  client,
  seedForm,
  startForms,
  type RunningForms,
} from '../../test-support/forms-server.js';
import { startReceiver, waitFor, type Receiver } from '../../test-support/receivers.js';
import { checkVapid, decryptPush, subscriptionKeys } from '../../test-support/web-push-decrypt.js';

const site = 'http://site.test';

describe('Web Push', () => {
  let s: RunningForms;
  let pushService: Receiver;
  let admin: ReturnType<typeof client>;
  beforeAll(async () => {
    pushService = await startReceiver(0, [201]);
    s = await startForms({ deps: { retrySchedule: [100, 100] } });
    admin = client(s.url);
    await seedForm(s.url);
  });
  afterAll(async () => {
    await s.close();
    await pushService.close();
  });

  test('a submission pushes exactly {org, form}, VAPID-signed and aes128gcm-encrypted', async () => {
    const keys = subscriptionKeys();
    const endpoint = `${pushService.url}/push/device-1`;
    const sub = await admin('POST', '/api/orgs/acme/push/subscribe', {
      endpoint,
      expirationTime: null,
      keys: { p256dh: keys.p256dh, auth: keys.auth },
    });
    expect(sub.status).toBe(201);
    const r = await client(s.url, null)(
      'POST',
      '/api/orgs/acme/forms/contact/submissions',
      { name: 'Ada' },
      {
        origin: site,
      },
    );
    expect(r.status).toBe(200);
    const got = await waitFor(() => pushService.received[0]);
    expect(got.path).toBe('/push/device-1');
    expect(got.headers['content-encoding']).toBe('aes128gcm');
    expect(Number(got.headers.ttl)).toBeGreaterThan(0);
    const vapid = await admin<{ publicKey: string }>('GET', '/api/push/vapid');
    const { k, claims } = checkVapid(got.headers.authorization, pushService.url);
    expect(k).toBe(vapid.body.publicKey);
    expect(claims.sub).toMatch(/^mailto:/);
    expect(JSON.parse(decryptPush(got.body, keys))).toEqual({ org: 'acme', form: 'contact' });
  });

  test('a subscription the push service answers 410 for is dropped', async () => {
    pushService.received.length = 0;
    pushService.statuses.splice(0, pushService.statuses.length, 410);
    const keys = subscriptionKeys();
    await admin('POST', '/api/orgs/acme/push/unsubscribe', {
      endpoint: `${pushService.url}/push/device-1`,
    });
    await admin('POST', '/api/orgs/acme/push/subscribe', {
      endpoint: `${pushService.url}/push/gone`,
      keys: { p256dh: keys.p256dh, auth: keys.auth },
    });
    expect(await s.store.push.ofOrg('acme')).toHaveLength(1);
    const r = await client(s.url, null)<{ id: string }>(
      'POST',
      '/api/orgs/acme/forms/contact/submissions',
      { name: 'B' },
      { origin: site },
    );
    // The attempt is recorded after the subscription is removed: wait for the record.
    const deliveries = await waitFor(async () => {
      const full = await admin<{
        deliveries: { kind: string; status: string; lastStatus: number }[];
      }>('GET', `/api/orgs/acme/forms/contact/submissions/${r.body.id}`);
      return full.body.deliveries[0]?.status === 'pending' ? undefined : full.body.deliveries;
    });
    expect(deliveries).toEqual([
      expect.objectContaining({ kind: 'push', status: 'dropped', lastStatus: 410 }),
    ]);
    expect(await s.store.push.ofOrg('acme')).toEqual([]);
    expect(pushService.received).toHaveLength(1);
    // Later submissions push to nobody.
    await client(s.url, null)(
      'POST',
      '/api/orgs/acme/forms/contact/submissions',
      { name: 'C' },
      {
        origin: site,
      },
    );
    await new Promise((done) => setTimeout(done, 300));
    expect(pushService.received).toHaveLength(1);
  });

  test('subscribe checks the subscription and needs a token of the organisation', async () => {
    const bad = await admin('POST', '/api/orgs/acme/push/subscribe', {
      endpoint: `${pushService.url}/x`,
      keys: { p256dh: 'short', auth: 'short' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/p256dh/);
    const missing = await admin('POST', '/api/orgs/acme/push/subscribe', { endpoint: 'x' });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatch(/keys/);
    const anon = await client(s.url, null)('POST', '/api/orgs/acme/push/subscribe', {});
    expect(anon.status).toBe(401);
    expect(
      (await admin('POST', '/api/orgs/acme/push/unsubscribe', { endpoint: 'nope' })).status,
    ).toBe(204);
  });
});
