// Two servers on one PostgreSQL database take a burst of submissions between them and one is
// killed (SIGKILL) in the middle of it (docs/forms.md#several-instances). Each server is a process
// of its own, so the kill is a real one: mid-commit, mid-delivery, leases held.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { startFormsChild, type FormsChild } from './test-support/forms-child.js';
import { client, seedForm } from './test-support/forms-server.js';
import { startReceiver, waitFor, type Received } from './test-support/receivers.js';
import { createTestDatabase, dropTestDatabase } from '../../../test-support/test-database.js';
import { decryptPush, subscriptionKeys } from './test-support/web-push-decrypt.js';

const site = 'http://site.test';
const formPath = '/api/orgs/acme/forms/contact';
const leaseMs = 3_000;
const deps = { retrySchedule: [200, 500, 1_000], deliveryLeaseMs: leaseMs };

const webhookIds = (received: Received[]) =>
  received.filter((r) => r.path === '/hook').map((r) => String(r.headers['webhook-id']));

test('one of two instances killed mid-burst: every acknowledged submission kept, every webhook attempted once', async () => {
  const webhooks = await startReceiver();
  const pushService = await startReceiver(0, [201]);
  const databaseUrl = await createTestDatabase();
  const dirs = [0, 1].map(() => mkdtempSync(join(tmpdir(), 'havn-forms-pair-')));
  const envOf = (i: number) => ({
    USER_DATA_DIR: dirs[i]!,
    DATABASE_URL: databaseUrl!,
    INGEST_RATE_LIMIT_PER_MINUTE: '0',
  });
  const children: FormsChild[] = [];
  try {
    const [doomed, survivor] = await Promise.all([
      startFormsChild(envOf(0), deps),
      startFormsChild(envOf(1), deps),
    ]);
    children.push(doomed, survivor);
    await seedForm(survivor.url, { webhooks: [{ url: `${webhooks.url}/hook`, secret: 'k' }] });

    // 300 submissions at once, every other one to each instance; the first is killed once it has
    // acknowledged 40 of its 150.
    const acknowledged: string[] = [];
    let doomedAcks = 0;
    const post = async (i: number) => {
      const target = i % 2 === 0 ? doomed : survivor;
      try {
        const r = await client(target.url, null)<{ id: string }>(
          'POST',
          `${formPath}/submissions`,
          { name: `n${String(i)}`, message: 'x'.repeat(300) },
          { origin: site },
        );
        if (r.status !== 200) return;
        acknowledged.push(r.body.id);
        if (target === doomed && ++doomedAcks === 40) doomed.process.kill('SIGKILL');
      } catch {
        // The killed instance's unanswered requests: never acknowledged.
      }
    };
    await Promise.all(Array.from({ length: 300 }, (_, i) => post(i)));
    expect(await doomed.exited).toBe('SIGKILL');
    expect(doomedAcks).toBeGreaterThanOrEqual(40);
    expect(acknowledged.length).toBeGreaterThanOrEqual(190);

    // Every acknowledged submission is stored.
    const admin = client(survivor.url);
    const feed = await admin<{ submissions: { id: string }[] }>(
      'GET',
      `${formPath}/submissions?limit=500`,
    );
    const stored = new Set(feed.body.submissions.map((s) => s.id));
    expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);

    // Once the killed instance's leases run out, every stored submission's webhook has arrived.
    await waitFor(
      () => (new Set(webhookIds(webhooks.received)).size >= stored.size ? true : undefined),
      leaseMs + 20_000,
    );
    await new Promise((r) => setTimeout(r, 1_000)); // room for a repeat to show up
    const arrivals = webhookIds(webhooks.received);
    expect(new Set(arrivals).size).toBe(stored.size);
    // Each delivery was attempted by one instance once: one recorded attempt each, delivered. Two
    // live instances attempting the same row would have recorded two.
    const recorded = await Promise.all(
      [...stored].map(async (id) => {
        const r = await admin<{ deliveries: { status: string; attempts: number }[] }>(
          'GET',
          `${formPath}/submissions/${id}`,
        );
        return r.body.deliveries;
      }),
    );
    expect(recorded.flat().filter((d) => d.status !== 'delivered' || d.attempts !== 1)).toEqual([]);
    // Arrivals beyond one per webhook-id can only be attempts the killed instance had on the wire
    // (sent, and killed before recording them), sent again once its lease ran out: at least once,
    // with the same webhook-id. It makes at most 16 attempts at a time.
    expect(arrivals.length - stored.size).toBeLessThanOrEqual(16);

    // Redeliver, push and export work on the survivor, and on the killed one once restarted.
    const keys = subscriptionKeys();
    const subscribed = await admin('POST', '/api/orgs/acme/push/subscribe', {
      endpoint: `${pushService.url}/push/device`,
      expirationTime: null,
      keys: { p256dh: keys.p256dh, auth: keys.auth },
    });
    expect(subscribed.status).toBe(201);
    const restarted = await startFormsChild(envOf(0), deps);
    children.push(restarted);
    for (const instance of [survivor, restarted]) {
      const api = client(instance.url);
      const id = acknowledged[0]!;
      const before = webhookIds(webhooks.received).length;
      const redeliver = await api<{ queued: number }>(
        'POST',
        `${formPath}/submissions/${id}/redeliver`,
      );
      expect(redeliver.status).toBe(202);
      expect(redeliver.body.queued).toBe(1);
      await waitFor(() => (webhookIds(webhooks.received).length > before ? true : undefined));

      const pushes = pushService.received.length;
      const r = await client(instance.url, null)<{ id: string }>(
        'POST',
        `${formPath}/submissions`,
        { name: 'after the kill' },
        { origin: site },
      );
      expect(r.status).toBe(200);
      const push = await waitFor(() => pushService.received[pushes]);
      expect(JSON.parse(decryptPush(push.body, keys))).toEqual({ org: 'acme', form: 'contact' });

      const csv = await api('GET', `${formPath}/submissions/export?format=csv`);
      expect(csv.status).toBe(200);
      for (const ackId of acknowledged) expect(csv.text).toContain(ackId);
      expect(csv.text).toContain(r.body.id);
    }
  } finally {
    await Promise.all(children.map((c) => c.kill('SIGKILL')));
    await webhooks.close();
    await pushService.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    await dropTestDatabase(databaseUrl);
  }
});
