import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { client, seedForm, startForms, type RunningForms } from '../test-support/forms-server.js';
import { startReceiver, waitFor, type Receiver } from '../test-support/receivers.js';

const site = 'http://site.test';
const formPath = '/api/orgs/acme/forms/contact';
const secret = `whsec_${Buffer.from('a test secret of 24 bytes').toString('base64')}`;

interface Attempt {
  attemptedAt: string;
  outcome: string;
  status: number | null;
  durationMs: number;
  error: string | null;
  response: string | null;
}
interface LogDelivery {
  id: string;
  submissionId: string | null;
  test: boolean;
  target: string;
  status: string;
  attempts: number;
  attemptLog: Attempt[];
}
interface Sent {
  type: string;
  data: { id: string; answers: Record<string, unknown> };
}

async function submit(s: RunningForms, body: unknown = { name: 'Ada', email: 'ada@example.com' }) {
  const r = await client(s.url, null)<{ id: string }>('POST', `${formPath}/submissions`, body, {
    origin: site,
  });
  expect(r.status).toBe(200);
  return r.body.id;
}

async function log(s: RunningForms, url: string, query = '') {
  const r = await client(s.url)<{ deliveries: LogDelivery[] }>(
    'GET',
    `${formPath}/webhooks/deliveries?url=${encodeURIComponent(url)}${query}`,
  );
  expect(r.status).toBe(200);
  return r.body.deliveries;
}

const sent = (r: Receiver, n: number) => JSON.parse(r.received[n]!.body.toString()) as Sent;

describe('a webhook delivery log, test sends and one redeliver', () => {
  let s: RunningForms;
  let a: Receiver;
  let b: Receiver;
  beforeAll(async () => {
    a = await startReceiver();
    b = await startReceiver();
    s = await startForms({ deps: { retrySchedule: [100, 200, 300] } });
    await seedForm(s.url, {
      webhooks: [
        { url: `${a.url}/a`, secret },
        { url: `${b.url}/b`, secret },
      ],
    });
  });
  afterAll(async () => {
    await s.close();
    await a.close();
    await b.close();
  });

  test('send test with no submission yet: a signed sample made from the definition, logged', async () => {
    const r = await client(s.url)<LogDelivery>('POST', `${formPath}/webhooks/test`, {
      url: `${a.url}/a`,
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ test: true, submissionId: null, status: 'delivered' });
    expect(r.body.attemptLog).toEqual([
      expect.objectContaining({ outcome: 'delivered', status: 200, response: 'ok', error: null }),
    ]);
    expect(a.received).toHaveLength(1);
    const got = a.received[0]!;
    const body = new Webhook(secret).verify(got.body, got.headers as Record<string, string>);
    expect(body).toMatchObject({
      type: 'submission.test',
      data: {
        org: 'acme',
        form: 'contact',
        answers: { email: 'test@example.com', topics: ['a'] },
      },
    });
    expect(sent(a, 0).data.id).toMatch(/^sample_/);
    expect(got.headers['webhook-id']).toBe(r.body.id);
    expect(b.received).toHaveLength(0);
    expect((await log(s, `${a.url}/a`)).map((d) => d.id)).toEqual([r.body.id]);
    expect(await log(s, `${b.url}/b`)).toEqual([]);
  });

  test('the log keeps each attempt: its outcome, code and the first bytes of a hostile answer', async () => {
    a.received.length = 0;
    // 500 with a long body of hostile bytes, then 200.
    const hostile = Buffer.concat([
      Buffer.from('<script>alert(1)</script>\u0000\u001b[31m\u202Egnp.exe '),
      Buffer.from([0xff, 0xfe, 0xc3]),
      Buffer.alloc(3000, 'x'),
    ]);
    a.statuses.splice(0, a.statuses.length, 500, 200);
    a.bodies.splice(0, a.bodies.length, hostile, 'thanks');
    const id = await submit(s);
    const [d] = await waitFor(async () => {
      const ds = await log(s, `${a.url}/a`);
      return ds[0]?.submissionId === id && ds[0].status === 'delivered' ? ds : undefined;
    });
    expect(d).toMatchObject({ test: false, attempts: 2, target: `${a.url}/a` });
    const [ok, failed] = d!.attemptLog;
    expect(ok).toMatchObject({ outcome: 'delivered', status: 200, response: 'thanks' });
    expect(failed).toMatchObject({ outcome: 'retrying', status: 500 });
    const text = failed!.response!;
    expect(text.startsWith('<script>alert(1)</script>\\u0000\\u001b[31m\\u202egnp.exe ')).toBe(
      true,
    );
    expect(text).toContain('\ufffd');
    // 512 bytes kept: what is left of the x's after the 45 bytes before them.
    expect(text.endsWith(`\ufffd${'x'.repeat(512 - 45)}`)).toBe(true);
    for (const raw of ['\u0000', '\u001b', '\u202e']) expect(text).not.toContain(raw);
    expect(failed!.error).toMatch(/^HTTP 500: <script>/);
    // The newest first: the test send of the first test is older.
    const all = await log(s, `${a.url}/a`);
    expect(all.map((x) => x.test)).toEqual([false, true]);
    const page = await log(s, `${a.url}/a`, '&limit=1');
    expect(page.map((x) => x.id)).toEqual([d!.id]);
    const older = await log(s, `${a.url}/a`, `&limit=1&before=${d!.id}`);
    expect(older.map((x) => x.test)).toEqual([true]);
  });

  test('send test with a submission sends the latest one as a test, apart from its deliveries', async () => {
    a.received.length = 0;
    a.statuses.splice(0, a.statuses.length, 200);
    a.bodies.length = 0;
    const id = await submit(s, { name: 'Grace', email: 'grace@example.com' });
    await waitFor(() => (a.received.length >= 1 ? true : undefined));
    const r = await client(s.url)<LogDelivery>('POST', `${formPath}/webhooks/test`, {
      url: `${a.url}/a`,
    });
    expect(r.body).toMatchObject({ test: true, submissionId: id, status: 'delivered' });
    const test = sent(a, 1);
    expect(test.type).toBe('submission.test');
    expect(test.data).toMatchObject({ id, answers: { name: 'Grace' } });
    expect(sent(a, 0).type).toBe('submission.created');
    // The submission's own deliveries and its redeliver leave the test out.
    const record = await client(s.url)<{ deliveries: { id: string }[] }>(
      'GET',
      `${formPath}/submissions/${id}`,
    );
    expect(record.body.deliveries.map((x) => x.id)).not.toContain(r.body.id);
    const again = await client(s.url)('POST', `${formPath}/submissions/${id}/redeliver`);
    expect(again.body).toEqual({ id, queued: 2 });
    await waitFor(async () => {
      const x = await client(s.url)<{ deliveries: { attempts: number; status: string }[] }>(
        'GET',
        `${formPath}/submissions/${id}`,
      );
      return x.body.deliveries.every((d) => d.attempts === 2 && d.status === 'delivered')
        ? true
        : undefined;
    });
  });

  test('redeliver one delivery sends to its target only', async () => {
    a.received.length = 0;
    b.received.length = 0;
    const id = await submit(s, { name: 'Linus' });
    const ofA = await waitFor(async () => {
      const ds = await log(s, `${a.url}/a`);
      const mine = ds.find((x) => x.submissionId === id && x.status === 'delivered');
      return mine && b.received.length >= 1 ? mine : undefined;
    });
    const r = await client(s.url)('POST', `${formPath}/deliveries/${ofA.id}/redeliver`);
    expect(r.status).toBe(202);
    expect(r.body).toEqual({ id: ofA.id, queued: 1 });
    const twice = await waitFor(async () => {
      const d = (await log(s, `${a.url}/a`)).find((x) => x.id === ofA.id);
      return d?.attempts === 2 && d.status === 'delivered' ? d : undefined;
    });
    expect(twice.attemptLog.map((x) => x.outcome)).toEqual(['delivered', 'delivered']);
    const ids = a.received.map((x) => (JSON.parse(x.body.toString()) as Sent).data.id);
    expect(ids).toEqual([id, id]);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(b.received).toHaveLength(1);
    const ofB = (await log(s, `${b.url}/b`)).find((x) => x.submissionId === id);
    expect(ofB?.attempts).toBe(1);
  });

  test('the edges: fields named, unknown deliveries, another organisation', async () => {
    const api = client(s.url);
    expect((await api('GET', `${formPath}/webhooks/deliveries`)).body).toEqual({
      error: 'url is required',
    });
    const zero = await api('GET', `${formPath}/webhooks/deliveries?url=x&limit=0`);
    expect(zero.status).toBe(400);
    expect(zero.body).toEqual({ error: 'limit must be at least 1' });
    const other = await api('POST', `${formPath}/webhooks/test`, {
      url: 'https://elsewhere.test/',
    });
    expect(other.status).toBe(400);
    expect(other.body).toEqual({ error: 'url is not one of the webhooks of form acme/contact' });
    expect((await api('POST', `${formPath}/webhooks/test`, {})).body).toEqual({
      error: 'url is required',
    });
    const missing = await api('POST', `${formPath}/deliveries/msg_nope/redeliver`);
    expect(missing.status).toBe(404);

    // An organisation token of another organisation, which has a form of the same id.
    await seedForm(s.url, { org: 'rival' });
    const minted = await api<{ token: string }>('POST', '/api/orgs/rival/tokens', { label: 't' });
    const rival = client(s.url, minted.body.token);
    const [delivery] = await log(s, `${a.url}/a`);
    const stolen = await rival(
      'POST',
      `/api/orgs/rival/forms/contact/deliveries/${delivery!.id}/redeliver`,
    );
    expect(stolen.status).toBe(404);
    expect(stolen.body).toEqual({ error: `delivery ${delivery!.id} not found` });
    const theirs = await rival<{ deliveries: unknown[] }>(
      'GET',
      `/api/orgs/rival/forms/contact/webhooks/deliveries?url=${encodeURIComponent(`${a.url}/a`)}`,
    );
    expect(theirs.body).toEqual({ deliveries: [] });
    expect(
      (await rival('GET', '/api/orgs/rival/forms/none/webhooks/deliveries?url=x')).status,
    ).toBe(404);
    expect((await rival('POST', `${formPath}/deliveries/${delivery!.id}/redeliver`)).status).toBe(
      403,
    );
  });
});

test('a test to an address the policy refuses fails at once with the reason', async () => {
  const receiver = await startReceiver();
  const s = await startForms({ config: { allowPrivateWebhooks: false } });
  try {
    await seedForm(s.url, { webhooks: [{ url: `${receiver.url}/hook`, secret }] });
    const r = await client(s.url)<LogDelivery>('POST', `${formPath}/webhooks/test`, {
      url: `${receiver.url}/hook`,
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ test: true, status: 'failed', attempts: 1 });
    expect(r.body.attemptLog).toEqual([
      expect.objectContaining({ outcome: 'failed', status: null, response: null }),
    ]);
    expect(r.body.attemptLog[0]!.error).toMatch(
      /refused range loopback .*; the forms server delivers to private, loopback and link-local addresses only with ALLOW_PRIVATE_WEBHOOKS=1$/,
    );
    expect(receiver.received).toHaveLength(0);
    // A real submission's delivery to it fails the same way, in the log.
    await submit(s);
    const [d] = await waitFor(async () => {
      const ds = await log(s, `${receiver.url}/hook`);
      return ds.length === 2 && ds[0]!.status === 'failed' ? ds : undefined;
    });
    expect(d!.attemptLog[0]).toMatchObject({ outcome: 'failed', status: null });
    expect(d!.attemptLog[0]!.error).toMatch(/refused range loopback/);
  } finally {
    await s.close();
    await receiver.close();
  }
});

test('a webhook URL is checked against the address policy before anything is sent, naming the setting', async () => {
  const strict = await startForms({ config: { allowPrivateWebhooks: false } });
  const relaxed = await startForms({ config: { allowPrivateWebhooks: true } });
  try {
    await seedForm(strict.url);
    await seedForm(relaxed.url);
    const check = (s: RunningForms, url: string) =>
      client(s.url)<{ url: string; deliverable: boolean; problem: string | null }>(
        'POST',
        '/api/orgs/acme/webhooks/check',
        { url },
      );
    const refused = await check(strict, 'http://127.0.0.1:4000/hook');
    expect(refused.status).toBe(200);
    expect(refused.body).toEqual({
      url: 'http://127.0.0.1:4000/hook',
      deliverable: false,
      problem:
        'host 127.0.0.1 resolves to 127.0.0.1, which is in the refused range loopback 127.0.0.0/8; ' +
        'the forms server delivers to private, loopback and link-local addresses only with ALLOW_PRIVATE_WEBHOOKS=1',
    });
    expect((await check(strict, 'http://[::1]:4000/')).body.deliverable).toBe(false);
    expect((await check(strict, 'https://203.0.113.9/hook')).body.deliverable).toBe(false);
    expect((await check(strict, 'https://8.8.8.8/hook')).body).toMatchObject({
      deliverable: true,
      problem: null,
    });
    expect((await check(relaxed, 'http://127.0.0.1:4000/hook')).body.deliverable).toBe(true);
    expect(
      (await client(strict.url, null)('POST', '/api/orgs/acme/webhooks/check', { url: 'x' }))
        .status,
    ).toBe(401);
  } finally {
    await strict.close();
    await relaxed.close();
  }
});
