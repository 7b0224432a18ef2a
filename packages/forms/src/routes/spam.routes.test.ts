import { solveChallenge, type Challenge } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/sha';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { client, seedForm, startForms, type RunningForms } from '../test-support/forms-server.js';
import { startReceiver, waitFor, type Receiver } from '../test-support/receivers.js';

const site = 'http://site.test';
const contact = '/api/orgs/acme/forms/contact';
const plain = '/api/orgs/acme/forms/plain';

/** The ALTCHA v2 payload a solver sends: base64 of `{ challenge, solution }`. */
async function solve(challenge: Challenge): Promise<string> {
  const solution = await solveChallenge({ challenge, deriveKey });
  if (!solution) throw new Error('no solution');
  return Buffer.from(JSON.stringify({ challenge, solution })).toString('base64');
}

describe('proof of work (docs/forms.md#spam)', () => {
  let s: RunningForms;
  let receiver: Receiver;
  let skew = 0;
  const admin = () => client(s.url);
  const publicApi = () => client(s.url, null);

  const challengeOf = async (path = contact) => {
    const r = await publicApi()<Challenge>('GET', `${path}/challenge`, undefined, {
      origin: site,
    });
    expect(r.status).toBe(200);
    return r.body;
  };
  const submit = async (answers: Record<string, unknown>, path = contact) => {
    const r = await publicApi()<{ id: string }>('POST', `${path}/submissions`, answers, {
      origin: site,
    });
    expect(r.status).toBe(200);
    return r.body.id;
  };
  const record = async (id: string, path = contact) =>
    (
      await admin()<{ spam: boolean; submitFields: Record<string, unknown> | null }>(
        'GET',
        `${path}/submissions/${id}`,
      )
    ).body;
  const deliveriesOf = (id: string) => s.store.deliveries.ofSubmission(id);

  beforeAll(async () => {
    receiver = await startReceiver();
    s = await startForms({
      config: { ingestRateLimitPerMinute: 0 },
      deps: { now: () => Date.now() + skew, proofOfWork: { maxNumber: 2_000 } },
    });
    await seedForm(s.url, { webhooks: [{ url: receiver.url, secret: 's' }] });
    await seedForm(s.url, { form: 'plain', webhooks: [{ url: receiver.url, secret: 's' }] });
    await seedForm(s.url, { form: 'other' });
    for (const form of ['contact', 'other']) {
      const r = await admin()('PATCH', `/api/orgs/acme/forms/${form}`, { spamProtection: 'pow' });
      expect(r.status).toBe(200);
    }
  });
  afterAll(async () => {
    await s.close();
    await receiver.close();
  });

  test('spamProtection is a form field: honeypot by default, set by PUT and PATCH', async () => {
    expect((await admin()<{ form: Loose }>('GET', plain)).body.form.spamProtection).toBe(
      'honeypot',
    );
    expect((await admin()<{ form: Loose }>('GET', contact)).body.form.spamProtection).toBe('pow');
    const bad = await admin()('PATCH', plain, { spamProtection: 'captcha' });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'spamProtection must be "honeypot" or "pow"' });
    const put = await admin()('PUT', '/api/orgs/acme/forms/put-pow', {
      allowedOrigins: [site],
      spamProtection: 'pow',
    });
    expect(put.status).toBe(200);
    expect(put.body.spamProtection).toBe('pow');
  });

  test('the definition of a "pow" form names its challenge; a honeypot form does not', async () => {
    const pow = await publicApi()<{ submit: Loose }>('GET', `${contact}/definition`, undefined, {
      origin: site,
    });
    expect(pow.body.submit).toEqual({
      submitUrl: `${s.url}${contact}/submissions`,
      submitMethod: 'POST',
      spamProtection: 'pow',
      challengeUrl: `${s.url}${contact}/challenge`,
    });
    const honeypot = await publicApi()<{ submit: Loose }>('GET', `${plain}/definition`);
    expect(honeypot.body.submit.spamProtection).toBeUndefined();
  });

  test('the challenge is gated by allowedOrigins and is only for "pow" forms', async () => {
    const ok = await publicApi()<Challenge>('GET', `${contact}/challenge`, undefined, {
      origin: site,
    });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe(site);
    expect(ok.headers.get('cache-control')).toBe('no-store');
    expect(ok.body.parameters).toMatchObject({
      algorithm: 'SHA-256',
      cost: 1,
      data: { form: 'acme/contact' },
    });
    expect(ok.body.signature).toMatch(/^[0-9a-f]{64}$/);
    const expiresIn = (ok.body.parameters.expiresAt ?? 0) * 1000 - Date.now();
    expect(expiresIn).toBeGreaterThan(9 * 60_000);
    expect(expiresIn).toBeLessThanOrEqual(10 * 60_000);
    const refused = await publicApi()('GET', `${contact}/challenge`, undefined, {
      origin: 'http://evil.test',
    });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
    const honeypot = await publicApi()('GET', `${plain}/challenge`, undefined, { origin: site });
    expect(honeypot.status).toBe(409);
  });

  test('a valid solution is stored as a submission and fans out; the solution is not kept', async () => {
    const altcha = await solve(await challengeOf());
    const id = await submit({ name: 'Ada', submitFields: { _gotcha: '', altcha } });
    const stored = await record(id);
    expect(stored.spam).toBe(false);
    expect(stored.submitFields).toEqual({ _gotcha: '' });
    await waitFor(() =>
      receiver.received.some((r) => r.body.toString().includes(id)) ? true : undefined,
    );
  });

  test('without a solution, with a wrong, an expired or a replayed one: stored as spam, no fan-out', async () => {
    const ids: Record<string, string> = {};
    ids.none = await submit({ name: 'No solution', submitFields: { _gotcha: '' } });
    ids.garbage = await submit({ name: 'Garbage', submitFields: { altcha: 'not base64 json' } });
    ids.huge = await submit({ name: 'Huge', submitFields: { altcha: 'A'.repeat(100_000) } });

    const challenge = await challengeOf();
    const good = JSON.parse(Buffer.from(await solve(challenge), 'base64').toString()) as {
      challenge: Challenge;
      solution: { counter: number; derivedKey: string };
    };
    const wrong = { ...good, solution: { ...good.solution, derivedKey: '00'.repeat(32) } };
    ids.wrong = await submit({
      name: 'Wrong',
      submitFields: { altcha: Buffer.from(JSON.stringify(wrong)).toString('base64') },
    });
    // A tampered challenge (an easier prefix) no longer matches its signature.
    const tampered = {
      ...good,
      challenge: {
        ...good.challenge,
        parameters: { ...good.challenge.parameters, keyPrefix: '00' },
      },
    };
    ids.tampered = await submit({
      name: 'Tampered',
      submitFields: { altcha: Buffer.from(JSON.stringify(tampered)).toString('base64') },
    });

    const first = await solve(await challengeOf());
    ids.first = await submit({ name: 'First use', submitFields: { altcha: first } });
    ids.replayed = await submit({ name: 'Replayed', submitFields: { altcha: first } });

    // A challenge of another form, solved and sent here.
    ids.otherForm = await submit({
      name: 'Other form',
      submitFields: { altcha: await solve(await challengeOf('/api/orgs/acme/forms/other')) },
    });

    const late = await solve(await challengeOf());
    skew = 11 * 60_000;
    try {
      ids.expired = await submit({ name: 'Expired', submitFields: { altcha: late } });
    } finally {
      skew = 0;
    }

    for (const [why, id] of Object.entries(ids)) {
      const expected = why === 'first' ? false : true;
      expect({ why, spam: (await record(id)).spam }).toEqual({ why, spam: expected });
      if (expected)
        expect({ why, deliveries: await deliveriesOf(id) }).toEqual({ why, deliveries: [] });
    }
  });

  test('a used solution stays used for every instance: it is kept in the database', async () => {
    const altcha = await solve(await challengeOf());
    const { signature } = (
      JSON.parse(Buffer.from(altcha, 'base64').toString()) as { challenge: Challenge }
    ).challenge;
    expect(await s.store.challenges.claim(signature ?? '', Date.now() + 60_000)).toBe(true);
    const id = await submit({ name: 'Claimed elsewhere', submitFields: { altcha } });
    expect((await record(id)).spam).toBe(true);
  });

  test('expired challenges are swept from the used list', async () => {
    const t = Date.now();
    await s.store.challenges.claim('f'.repeat(64), t - 1_000);
    const before = await s.store.challenges.sweep(t - 60_000);
    const after = await s.store.challenges.sweep(t);
    expect(after).toBe(before - 1);
  });

  test('a plain HTML post takes the solution in its altcha field; without one it is spam', async () => {
    const post = async (fields: Record<string, string>) => {
      const r = await fetch(`${s.url}${contact}/submissions`, {
        method: 'POST',
        redirect: 'manual',
        headers: { origin: site, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(fields).toString(),
      });
      expect(r.status).toBe(303);
      const feed = await admin()<{ submissions: { id: string; preview: string; spam: boolean }[] }>(
        'GET',
        `${contact}/submissions?includeSpam=true&limit=5`,
      );
      return feed.body.submissions.find((x) => x.preview === fields.name);
    };
    const altcha = await solve(await challengeOf());
    expect((await post({ name: 'Plain with solution', altcha }))?.spam).toBe(false);
    expect((await post({ name: 'Plain without' }))?.spam).toBe(true);
  });

  test('honeypot forms are unaffected: no solution needed, the honeypot still counts', async () => {
    const id = await submit({ name: 'Plain', submitFields: { _gotcha: '' } }, plain);
    expect((await record(id, plain)).spam).toBe(false);
    const bot = await submit({ name: 'Bot', submitFields: { _gotcha: 'x' } }, plain);
    expect((await record(bot, plain)).spam).toBe(true);
  });
});

describe('the spam view and "not spam" (docs/forms.md#spam)', () => {
  let s: RunningForms;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver();
    s = await startForms({ config: { ingestRateLimitPerMinute: 0 } });
    await seedForm(s.url, { webhooks: [{ url: receiver.url, secret: 's' }] });
    await client(s.url)('PATCH', contact, { spamProtection: 'pow' });
  });
  afterAll(async () => {
    await s.close();
    await receiver.close();
  });

  test('spam is listed apart, and "not spam" stores it as normal and fans it out once', async () => {
    const admin = client(s.url);
    const post = (name: string) =>
      client(s.url, null)<{ id: string }>(
        'POST',
        `${contact}/submissions`,
        { name },
        {
          origin: site,
        },
      );
    const spamId = (await post('Looks like spam')).body.id;
    await client(s.url)('PATCH', contact, { spamProtection: 'honeypot' });
    const hamId = (await post('A person')).body.id;

    const spamFeed = await admin<{ submissions: { id: string; spam: boolean }[] }>(
      'GET',
      `${contact}/spam`,
    );
    expect(spamFeed.status).toBe(200);
    expect(spamFeed.body.submissions.map((x) => [x.id, x.spam])).toEqual([[spamId, true]]);
    const feed = await admin<{ submissions: { id: string }[] }>('GET', `${contact}/submissions`);
    expect(feed.body.submissions.map((x) => x.id)).toEqual([hamId]);
    expect(await s.store.deliveries.ofSubmission(spamId)).toEqual([]);

    const moved = await admin('POST', `${contact}/submissions/${spamId}/not-spam`);
    expect(moved.status).toBe(200);
    expect(moved.body).toEqual({ id: spamId, spam: false, queued: 1 });
    await waitFor(() =>
      receiver.received.some((r) => r.body.toString().includes(spamId)) ? true : undefined,
    );
    const delivered = receiver.received.find((r) => r.body.toString().includes(spamId));
    expect((JSON.parse(delivered!.body.toString()) as { data: unknown }).data).toMatchObject({
      id: spamId,
      spam: false,
    });

    const after = await admin<{ submissions: { id: string }[] }>('GET', `${contact}/submissions`);
    expect(after.body.submissions.map((x) => x.id)).toEqual([hamId, spamId]);
    expect(
      (await admin<{ submissions: unknown[] }>('GET', `${contact}/spam`)).body.submissions,
    ).toEqual([]);
    // Again: nothing more is queued, so the receiver never gets it twice.
    const again = await admin('POST', `${contact}/submissions/${spamId}/not-spam`);
    expect(again.body).toEqual({ id: spamId, spam: false, queued: 0 });
    expect((await s.store.deliveries.ofSubmission(spamId)).length).toBe(1);

    expect((await admin('POST', `${contact}/submissions/sub_nope/not-spam`)).status).toBe(404);
    expect((await admin('GET', '/api/orgs/acme/forms/nope/spam')).status).toBe(404);
    expect((await client(s.url, null)('GET', `${contact}/spam`)).status).toBe(401);
  });
});

interface Loose {
  [key: string]: unknown;
}
