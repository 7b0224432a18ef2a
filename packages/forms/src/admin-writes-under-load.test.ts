import { afterAll, beforeAll, expect, test } from 'vitest';
import {
  client,
  sampleDefinition,
  seedForm,
  startForms,
  type RunningForms,
} from './test-support/forms-server.js';
import { startReceiver, waitFor, type Receiver } from './test-support/receivers.js';

const site = 'http://site.test';
const submitPath = '/api/orgs/acme/forms/contact/submissions';

let s: RunningForms;
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
  s = await startForms({
    config: { ingestRateLimitPerMinute: 0 },
    deps: { retrySchedule: [50, 100, 200] },
  });
  await seedForm(s.url, { webhooks: [{ url: `${receiver.url}/hook`, secret: 'k' }] });
});
afterAll(async () => {
  await s.close();
  await receiver.close();
});

// docs/forms.md#durability-and-throughput: an admin write never answers 500 because the database
// is busy, however hard ingest and the delivery worker write at the same time.
test('200 admin writes during an ingest burst and webhook deliveries all answer 2xx', async () => {
  const admin = client(s.url);
  const publicApi = client(s.url, null);
  const ids: string[] = [];
  let bursting = true;
  const submitter = async (n: number) => {
    for (let i = 0; bursting; i++) {
      const r = await publicApi<{ id: string }>(
        'POST',
        submitPath,
        { name: `s${String(n)}-${String(i)}`, message: 'x'.repeat(400) },
        { origin: site },
      );
      expect(r.status).toBe(200);
      ids.push(r.body.id);
    }
  };
  const burst = Array.from({ length: 12 }, (_, n) => submitter(n));
  await waitFor(() => (ids.length >= 50 && receiver.received.length > 0 ? true : undefined));

  const pick = () => ids[Math.floor(Math.random() * ids.length)]!;
  const writes: (() => Promise<{ status: number; text: string; what: string }>)[] = [];
  for (let i = 0; i < 50; i++) {
    writes.push(async () => ({
      what: 'form PUT',
      ...(await admin('PUT', '/api/orgs/acme/forms/contact', {
        name: `Contact ${String(i)}`,
        allowedOrigins: [site],
        webhooks: [{ url: `${receiver.url}/hook`, secret: 'k' }],
        // A changed definition each time: the PUT reads the current version, then writes a new one.
        definition: { ...sampleDefinition, thanks: `Thank you (${String(i)}).` },
      })),
    }));
    writes.push(async () => ({
      what: 'token',
      ...(await admin('POST', '/api/orgs/acme/tokens', { label: `t${String(i)}` })),
    }));
    writes.push(async () => ({
      what: 'mark read',
      ...(await admin('POST', `${submitPath}/${pick()}/read`)),
    }));
    writes.push(async () => ({
      what: 'redeliver',
      ...(await admin('POST', `${submitPath}/${pick()}/redeliver`)),
    }));
  }
  // Eight at a time, in a shuffled order, while the burst goes on.
  writes.sort(() => Math.random() - 0.5);
  const answers: { status: number; text: string; what: string }[] = [];
  const lanes = Array.from({ length: 8 }, async () => {
    for (let w = writes.shift(); w; w = writes.shift()) answers.push(await w());
  });
  await Promise.all(lanes);
  bursting = false;
  await Promise.all(burst);

  expect(answers).toHaveLength(200);
  expect(answers.filter((a) => a.status < 200 || a.status > 299)).toEqual([]);
  const form = await admin<{ form: { definitionVersion: number } }>(
    'GET',
    '/api/orgs/acme/forms/contact',
  );
  expect(form.body.form.definitionVersion).toBe(51);
  // The deliveries kept flowing: every submission's webhook arrives.
  await waitFor(() => {
    const seen = new Set(receiver.received.map((r) => r.headers['webhook-id']));
    return seen.size >= ids.length ? true : undefined;
  }, 60_000);
});
