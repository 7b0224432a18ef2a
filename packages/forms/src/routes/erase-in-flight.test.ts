import { expect, test } from 'vitest';
import { client, seedForm, startForms, type RunningForms } from '../test-support/forms-server.js';
import { rowsMentioning } from '../test-support/database-rows.js';
import { startReceiver, waitFor, type Receiver } from '../test-support/receivers.js';

/** A form whose webhook is `receiver`, and one submission to it: its id. */
async function submitWithHook(s: RunningForms, receiver: Receiver): Promise<string> {
  await seedForm(s.url, { webhooks: [{ url: receiver.url, secret: 's' }] });
  const posted = await client(s.url, null)<{ id: string }>(
    'POST',
    '/api/orgs/acme/forms/contact/submissions',
    { name: 'Ada', email: 'ada@example.com' },
    { origin: 'http://site.test' },
  );
  expect(posted.status).toBe(200);
  return posted.body.id;
}

// docs/forms.md#submissions: erasure and a delivery attempt are ordered, so an attempt that was in
// flight when its submission was erased leaves no log row behind once it ends.
test('an attempt in flight when its submission is erased leaves no row once it ends', async () => {
  const receiver = await startReceiver(0, [503]);
  receiver.delayMs = 1000;
  const s = await startForms({ config: { ingestRateLimitPerMinute: 0 } });
  try {
    const id = await submitWithHook(s, receiver);
    // The receiver has the request and holds its answer: the attempt is in flight.
    await waitFor(() => (receiver.received.length > 0 ? true : undefined));
    const [delivery] = await s.store.deliveries.ofSubmission(id);
    expect(delivery).toBeDefined();

    const erased = await client(s.url)('DELETE', `/api/orgs/acme/forms/contact/submissions/${id}`);
    expect(erased.status).toBe(204);
    // The receiver answers 503 after its delay and the worker records the attempt: it must find
    // its delivery gone and keep nothing.
    await new Promise((r) => setTimeout(r, 3000));
    expect(await s.store.deliveries.attempts(delivery!.id)).toEqual([]);
    expect(await s.store.deliveries.ofSubmission(id)).toEqual([]);
  } finally {
    await s.close();
    await receiver.close();
  }
});

// The same order, with the attempt held in flight for as long as the test needs: the receiver
// answers only once the erasure has answered 204, and the attempt's end is awaited (a graceful
// stop waits for every attempt in flight and its record), not slept for.
test('an attempt held in flight across the erasure leaves no row of the submission in any table', async () => {
  const receiver = await startReceiver(0, [200]);
  const release = receiver.hold();
  const s = await startForms({ config: { ingestRateLimitPerMinute: 0 } });
  try {
    const id = await submitWithHook(s, receiver);
    await waitFor(() => (receiver.received.length > 0 ? true : undefined), 15_000, 'the attempt');
    const deliveries = (await s.store.deliveries.ofSubmission(id)).map((d) => d.id);
    expect(deliveries).toHaveLength(1);

    const erased = await client(s.url)('DELETE', `/api/orgs/acme/forms/contact/submissions/${id}`);
    expect(erased.status).toBe(204);
    release();
    await s.stop();

    expect(receiver.received).toHaveLength(1);
    expect(await rowsMentioning(s.location, [id, ...deliveries])).toEqual([]);
  } finally {
    release();
    await s.close();
    await receiver.close();
  }
});
