// Several instances on one PostgreSQL database (docs/forms.md#several-instances): what one
// instance stores, shares or holds, the other sees, uses or gets back. PostgreSQL only: the
// embedded SQLite store has one instance.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { client, seedForm, startForms, type RunningForms } from './test-support/forms-server.js';
import { startReceiver, waitFor, type Receiver } from './test-support/receivers.js';
import { createTestDatabase, dropTestDatabase } from '../../../test-support/test-database.js';

const site = 'http://site.test';
const submitPath = '/api/orgs/acme/forms/contact/submissions';

async function submit(s: RunningForms, body: object): Promise<string> {
  const r = await client(s.url, null)<{ id: string }>('POST', submitPath, body, { origin: site });
  expect(r.status).toBe(200);
  return r.body.id;
}

/** Two servers started together on one new database. */
async function twoInstances(
  options: Parameters<typeof startForms>[0] = {},
): Promise<{ a: RunningForms; b: RunningForms; close(): Promise<void> }> {
  const databaseUrl = await createTestDatabase();
  const [a, b] = await Promise.all([
    startForms({ ...options, databaseUrl }),
    startForms({ ...options, databaseUrl }),
  ]);
  return {
    a,
    b,
    close: async () => {
      await Promise.all([a.close(), b.close()]);
      await dropTestDatabase(databaseUrl);
    },
  };
}

describe('two instances on one database', () => {
  let pair: Awaited<ReturnType<typeof twoInstances>>;
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
    pair = await twoInstances({ config: { ingestRateLimitPerMinute: 0 } });
    await seedForm(pair.a.url, { webhooks: [{ url: `${receiver.url}/hook`, secret: 'k' }] });
  });
  afterAll(async () => {
    await pair.close();
    await receiver.close();
  });

  test('started together, they generate one VAPID key pair and both serve it', async () => {
    const keyOf = async (s: RunningForms) =>
      (await client(s.url, null)<{ publicKey: string }>('GET', '/api/push/vapid')).body.publicKey;
    const [a, b] = await Promise.all([keyOf(pair.a), keyOf(pair.b)]);
    expect(Buffer.from(a, 'base64url')).toHaveLength(65);
    expect(b).toBe(a);
  });

  test('feeds, records, unread counts and export are the same from either instance', async () => {
    const ids = [
      await submit(pair.a, { name: 'Ada', message: 'via a' }),
      await submit(pair.b, { name: 'Grace', message: 'via b' }),
    ];
    const adminA = client(pair.a.url);
    const adminB = client(pair.b.url);
    expect((await adminB('POST', `${submitPath}/${ids[0]!}/read`)).status).toBe(200);
    for (const api of [adminA, adminB]) {
      const feed = await api<{ submissions: { id: string; read: boolean }[] }>('GET', submitPath);
      expect(feed.body.submissions.map((s) => [s.id, s.read])).toEqual([
        [ids[1], false],
        [ids[0], true],
      ]);
      const forms = await api<{ forms: { submissions: number; unread: number }[] }>(
        'GET',
        '/api/orgs/acme/forms',
      );
      expect(forms.body.forms[0]).toMatchObject({ submissions: 2, unread: 1 });
      const record = await api<{ answers: object }>('GET', `${submitPath}/${ids[1]!}`);
      expect(record.body.answers).toEqual({ name: 'Grace', message: 'via b' });
    }
    const csvA = (await adminA('GET', `${submitPath}/export?format=csv`)).text;
    const csvB = (await adminB('GET', `${submitPath}/export?format=csv`)).text;
    expect(csvA).toContain('Grace');
    expect(csvB).toBe(csvA);
  });

  test('with both delivering, each webhook is sent once, by one of them', async () => {
    const before = receiver.received.length;
    const ids = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        submit(i % 2 ? pair.a : pair.b, { name: `n${String(i)}` }),
      ),
    );
    await waitFor(() => (receiver.received.length - before >= 60 ? true : undefined));
    await new Promise((r) => setTimeout(r, 500)); // room for a second, wrong, attempt to show up
    const arrived = receiver.received
      .slice(before)
      .map((r) => (JSON.parse(r.body.toString()) as { data: { id: string } }).data.id);
    expect(arrived).toHaveLength(60);
    expect(new Set(arrived)).toEqual(new Set(ids));
  });
});

test('the ingest rate limit holds across instances', async () => {
  // Fixed minutes: keep the test inside one.
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 45_000) await new Promise((r) => setTimeout(r, 60_500 - intoMinute));
  const pair = await twoInstances({ config: { ingestRateLimitPerMinute: 5 } });
  try {
    await seedForm(pair.a.url);
    const post = (s: RunningForms) =>
      client(s.url, null)('POST', submitPath, { name: 'x' }, { origin: site });
    for (let i = 0; i < 5; i++) expect((await post(pair.a)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 400)); // one sync of the shared counters
    const refused = await post(pair.b);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await post(pair.a)).status).toBe(429);
  } finally {
    await pair.close();
  }
});

test('graceful shutdown hands back the deliveries it claimed: the other instance sends them at once', async () => {
  const receiver = await startReceiver();
  receiver.delayMs = 1_000; // attempts in flight when the first instance stops
  const databaseUrl = await createTestDatabase();
  const first = await startForms({ databaseUrl, config: { ingestRateLimitPerMinute: 0 } });
  let second: RunningForms | undefined;
  try {
    await seedForm(first.url, { webhooks: [{ url: `${receiver.url}/hook`, secret: 'k' }] });
    const ids = await Promise.all(
      Array.from({ length: 40 }, (_, i) => submit(first, { name: `n${String(i)}` })),
    );
    // The first instance claims the due deliveries (more than it attempts at once), then stops.
    await waitFor(() => (receiver.received.length > 0 ? true : undefined));
    await first.stop();
    const sentByFirst = receiver.received.length;
    expect(sentByFirst).toBeLessThan(40);
    receiver.delayMs = 0;
    const t0 = Date.now();
    // The default lease is 60 s: without the hand-back the rest would wait that long.
    second = await startForms({ databaseUrl });
    await waitFor(() => (receiver.received.length >= 40 ? true : undefined), 10_000);
    expect(Date.now() - t0).toBeLessThan(10_000);
    await new Promise((r) => setTimeout(r, 300));
    const arrived = receiver.received.map(
      (r) => (JSON.parse(r.body.toString()) as { data: { id: string } }).data.id,
    );
    expect(arrived).toHaveLength(40);
    expect(new Set(arrived)).toEqual(new Set(ids));
  } finally {
    await second?.close();
    await first.close();
    await receiver.close();
    await dropTestDatabase(databaseUrl);
  }
});
