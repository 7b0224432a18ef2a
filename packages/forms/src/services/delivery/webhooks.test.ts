import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Webhook } from 'standardwebhooks';
import {
  client,
  seedForm,
  startForms,
  type RunningForms,
} from '../../test-support/forms-server.js';
import { startReceiver, waitFor, type Receiver } from '../../test-support/receivers.js';
import { perReceiverConcurrency } from './delivery-worker.js';

const site = 'http://site.test';
const submitPath = '/api/orgs/acme/forms/contact/submissions';
const fast = [100, 200, 300];

interface Delivery {
  kind: string;
  target: string;
  status: string;
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
  deliveredAt: string | null;
}

async function submit(s: RunningForms, body: unknown = { name: 'Ada', email: 'a@b.c' }) {
  const r = await client(s.url, null)<{ id: string }>('POST', submitPath, body, { origin: site });
  expect(r.status).toBe(200);
  return r.body.id;
}

async function deliveries(s: RunningForms, id: string): Promise<Delivery[]> {
  const r = await client(s.url)<{ deliveries: Delivery[] }>('GET', `${submitPath}/${id}`);
  return r.body.deliveries;
}

describe('signed webhooks', () => {
  let s: RunningForms;
  let receiver: Receiver;
  const secret = `whsec_${Buffer.from('a very secret key of 24b').toString('base64')}`;
  beforeAll(async () => {
    receiver = await startReceiver();
    s = await startForms({ deps: { retrySchedule: fast } });
    await seedForm(s.url, {
      webhooks: [
        { url: `${receiver.url}/std`, secret },
        { url: `${receiver.url}/raw`, secret: 'plain-utf8-secret' },
      ],
    });
  });
  afterAll(async () => {
    await s.close();
    await receiver.close();
  });

  test('each webhook gets the record, verified by an independent Standard Webhooks verifier', async () => {
    const id = await submit(s);
    await waitFor(() => (receiver.received.length >= 2 ? true : undefined));
    const std = receiver.received.find((r) => r.path === '/std')!;
    const raw = receiver.received.find((r) => r.path === '/raw')!;
    const verified = new Webhook(secret).verify(std.body, std.headers as Record<string, string>);
    expect(verified).toMatchObject({
      type: 'submission.created',
      data: { id, org: 'acme', form: 'contact', answers: { name: 'Ada', email: 'a@b.c' } },
    });
    expect((verified as { data: object }).data).not.toHaveProperty('body');
    const rawKey = new Webhook(Buffer.from('plain-utf8-secret'), { format: 'raw' });
    expect(rawKey.verify(raw.body, raw.headers as Record<string, string>)).toMatchObject({
      data: { id },
    });
    expect(() =>
      new Webhook(secret).verify(raw.body, raw.headers as Record<string, string>),
    ).toThrow();
    const ds = await waitFor(async () => {
      const d = await deliveries(s, id);
      return d.every((x) => x.deliveredAt) ? d : undefined;
    });
    expect(ds).toHaveLength(2);
    expect(ds[0]).toMatchObject({
      kind: 'webhook',
      status: 'delivered',
      attempts: 1,
      lastStatus: 200,
    });
  });

  test('5xx is retried with the same id and a fresh signature; redeliver sends again', async () => {
    receiver.received.length = 0;
    receiver.statuses.splice(0, receiver.statuses.length, 503, 503, 503, 503, 200);
    const id = await submit(s);
    const ds = await waitFor(async () => {
      const d = await deliveries(s, id);
      return d.every((x) => x.status === 'delivered') ? d : undefined;
    });
    // Four 503s shared by the two hooks, then one success each.
    expect(ds.map((d) => d.attempts).reduce((a, b) => a + b)).toBe(6);
    const std = receiver.received.filter((r) => r.path === '/std');
    expect(new Set(std.map((r) => r.headers['webhook-id'])).size).toBe(1);
    for (const r of std) {
      new Webhook(secret).verify(r.body, r.headers as Record<string, string>);
    }
    const all = (await s.store.deliveries.ofSubmission(id)).map((d) => d.id);
    const log = await s.store.deliveries.attempts(all[0]!);
    expect(log.length).toBeGreaterThanOrEqual(1);
    expect(log[0]!.durationMs).toBeGreaterThanOrEqual(0);

    const ids = new Set(receiver.received.map((r) => r.headers['webhook-id']));
    expect(ids.size).toBe(2);
    receiver.received.length = 0;
    const again = await client(s.url)('POST', `${submitPath}/${id}/redeliver`);
    expect(again.status).toBe(202);
    expect(again.body).toEqual({ id, queued: 2 });
    await waitFor(() => (receiver.received.length >= 2 ? true : undefined));
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id']))).toEqual(ids);
  });

  test('every attempt carries the same bytes: the full record minus the raw body, as at ingest', async () => {
    receiver.received.length = 0;
    receiver.statuses.splice(0, receiver.statuses.length, 503, 503, 200);
    const id = await submit(s, {
      name: 'Zoë',
      topics: ['a', 'b'],
      n: 1.5,
      submitFields: { k: 'v' },
    });
    // Marked read before the retries: the body still says what it said at ingest (read: false).
    expect((await client(s.url)('POST', `${submitPath}/${id}/read`)).status).toBe(200);
    const std = await waitFor(() => {
      const got = receiver.received.filter((r) => r.path === '/std');
      return got.length >= 2 && receiver.statuses.length === 1 ? got : undefined;
    });
    expect(std[0]!.body.equals(std.at(-1)!.body)).toBe(true);
    const full = await client(s.url)<Record<string, unknown>>('GET', `${submitPath}/${id}`);
    const { body: _raw, deliveries: _d, ...record } = full.body;
    const sent = JSON.parse(std[0]!.body.toString()) as { data: Record<string, unknown> };
    expect(sent.data).toEqual({ ...record, read: false });
  });

  test('every submission of a burst gets its webhooks, each once, after deliveries yielded to it', async () => {
    receiver.received.length = 0;
    receiver.statuses.splice(0, receiver.statuses.length, 200);
    // Concurrent submissions (within the 100 a minute limit) share commits while deliveries wait.
    const ids = await Promise.all(
      Array.from({ length: 60 }, (_, i) => submit(s, { name: `n${String(i)}` })),
    );
    await waitFor(() => (receiver.received.length >= 2 * ids.length ? true : undefined));
    const got = receiver.received
      .filter((r) => r.path === '/std')
      .map((r) => (JSON.parse(r.body.toString()) as { data: { id: string } }).data.id);
    expect(got.sort()).toEqual([...ids].sort());
  });

  test('a dead receiver never delays the ingest answer; failures are recorded', async () => {
    const dead = await startForms({ deps: { retrySchedule: [60_000] } });
    try {
      await seedForm(dead.url, { webhooks: [{ url: 'http://127.0.0.1:9/dead', secret: 's' }] });
      const t0 = performance.now();
      const id = await submit(dead);
      expect(performance.now() - t0).toBeLessThan(5_000);
      const [d] = await waitFor(async () => {
        const x = await deliveries(dead, id);
        return x[0]?.attempts ? x : undefined;
      });
      expect(d).toMatchObject({ status: 'pending', lastStatus: null });
      expect(d!.lastError).toMatch(/ECONNREFUSED/);
    } finally {
      await dead.close();
    }
  });
});

describe('outbound safety and restarts', () => {
  test('without ALLOW_PRIVATE_WEBHOOKS a loopback target fails at once, logged once per target', async () => {
    const receiver = await startReceiver();
    const lines: string[] = [];
    const logTo = new PassThrough();
    logTo.on('data', (chunk: Buffer) => lines.push(...chunk.toString('utf8').split('\n')));
    // The default schedule: a refusal must not wait out a day of retries.
    const s = await startForms({ config: { allowPrivateWebhooks: false }, logTo });
    const targets = [`${receiver.url}/literal`, `http://localhost:${String(receiver.port)}/name`];
    try {
      await seedForm(s.url, { webhooks: targets.map((url) => ({ url, secret: 's' })) });
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push(await submit(s));
      for (const id of ids) {
        const ds = await waitFor(async () => {
          const d = await deliveries(s, id);
          return d.every((x) => x.status !== 'pending') ? d : undefined;
        });
        expect(ds.map((d) => [d.target, d.status, d.attempts])).toEqual(
          targets.map((t) => [t, 'failed', 1]),
        );
        for (const d of ds) expect(d.lastError).toMatch(/refused range loopback /);
      }
      expect(receiver.received).toHaveLength(0);
      const refusals = lines
        .filter((l) => l.includes('refused by the address policy'))
        .map((l) => (JSON.parse(l) as { target: string; error: string }).target);
      expect(refusals.sort()).toEqual([...targets].sort());
      // Redeliver starts it over, and it fails at once again, without another log line.
      const again = await client(s.url)('POST', `${submitPath}/${ids[0]!}/redeliver`);
      expect(again.status).toBe(202);
      await waitFor(async () => {
        const d = await deliveries(s, ids[0]!);
        return d.every((x) => x.status === 'failed' && x.attempts === 2) ? d : undefined;
      });
      expect(lines.filter((l) => l.includes('refused by the address policy'))).toHaveLength(2);
    } finally {
      await s.close();
      await receiver.close();
    }
  });

  test('a receiver that never answers is a failed attempt after the timeout', async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = String((silent.address() as AddressInfo).port);
    const s = await startForms({ deps: { retrySchedule: [60_000], deliveryTimeoutMs: 300 } });
    try {
      await seedForm(s.url, { webhooks: [{ url: `http://127.0.0.1:${port}/`, secret: 's' }] });
      const id = await submit(s);
      const [d] = await waitFor(async () => {
        const x = await deliveries(s, id);
        return x[0]?.attempts ? x : undefined;
      });
      expect(d).toMatchObject({ status: 'pending', lastStatus: null });
      expect(d!.lastError).toBe('timed out after 300 ms');
    } finally {
      await s.close();
      silent.closeAllConnections();
      silent.close();
    }
  });

  test('a receiver that hangs holds up no other form, keeps to its share, and is tried again', async () => {
    // Accepts every request and never answers.
    let requests = 0;
    const silent = createServer(() => {
      requests++;
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = String((silent.address() as AddressInfo).port);
    const other = await startReceiver();
    const s = await startForms({
      deps: { retrySchedule: [200, 60_000], deliveryTimeoutMs: 3_000 },
    });
    try {
      await seedForm(s.url, { webhooks: [{ url: `http://127.0.0.1:${port}/`, secret: 's' }] });
      await seedForm(s.url, {
        form: 'other',
        webhooks: [{ url: `${other.url}/other`, secret: 's' }],
      });
      const hanging = await Promise.all(Array.from({ length: 20 }, () => submit(s)));
      await waitFor(() => (requests >= perReceiverConcurrency ? true : undefined));
      const r = await client(s.url, null)<{ id: string }>(
        'POST',
        '/api/orgs/acme/forms/other/submissions',
        { name: 'Grace' },
        { origin: site },
      );
      expect(r.status).toBe(200);
      await waitFor(() => (other.received.length > 0 ? true : undefined));
      // It arrived while the hanging receiver still held its first attempts: none has timed out,
      // and the hanging receiver got only its share of the slots.
      expect((await deliveries(s, hanging[0]!))[0]!.attempts).toBe(0);
      expect(requests).toBe(perReceiverConcurrency);
      // Each hanging attempt times out and is tried again on the schedule.
      const [d] = await waitFor(async () => {
        const x = await deliveries(s, hanging[0]!);
        return (x[0]?.attempts ?? 0) >= 2 ? x : undefined;
      }, 30_000);
      expect(d!.lastError).toBe('timed out after 3000 ms');
    } finally {
      await s.close();
      await other.close();
      silent.closeAllConnections();
      silent.close();
    }
  });

  test('redirects are not followed: a 3xx is a failed attempt', async () => {
    const elsewhere = await startReceiver();
    const redirector = await startReceiver(0, [302]);
    redirector.headers.location = `${elsewhere.url}/landed`;
    const s = await startForms({ deps: { retrySchedule: [60_000] } });
    try {
      await seedForm(s.url, { webhooks: [{ url: redirector.url, secret: 's' }] });
      const id = await submit(s);
      const [d] = await waitFor(async () => {
        const x = await deliveries(s, id);
        return x[0]?.attempts ? x : undefined;
      });
      expect(d).toMatchObject({ status: 'pending', lastStatus: 302 });
      expect(d!.lastError).toMatch(/redirect to .* not followed/);
      expect(elsewhere.received).toHaveLength(0);
    } finally {
      await s.close();
      await redirector.close();
      await elsewhere.close();
    }
  });

  test('a delivery that failed before a restart is delivered by the next process', async () => {
    const receiver = await startReceiver(0, [500]);
    const first = await startForms({ deps: { retrySchedule: [300, 300, 300] } });
    const dir = first.dir;
    await seedForm(first.url, { webhooks: [{ url: receiver.url, secret: 's' }] });
    const id = await submit(first);
    await waitFor(() => (receiver.received.length >= 1 ? true : undefined));
    await first.stop();
    receiver.statuses.splice(0, receiver.statuses.length, 200);
    const second = await startForms({ dir, deps: { retrySchedule: [300, 300, 300] } });
    try {
      const [d] = await waitFor(async () => {
        const x = await deliveries(second, id);
        return x[0]?.status === 'delivered' ? x : undefined;
      });
      expect(d!.attempts).toBeGreaterThanOrEqual(2);
      expect(receiver.received.at(-1)!.headers['webhook-id']).toBe(
        receiver.received[0]!.headers['webhook-id'],
      );
    } finally {
      await second.close();
      await receiver.close();
      const { rmSync } = await import('node:fs');
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
