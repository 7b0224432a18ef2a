import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  adminToken,
  client,
  seedForm,
  startForms,
  type RunningForms,
} from '../test-support/forms-server.js';
import { parseCsv } from '../test-support/owasp-csv-payloads.js';
import { startReceiver, waitFor, type Receiver } from '../test-support/receivers.js';

const site = 'http://site.test';
const formPath = '/api/orgs/acme/forms/contact';

describe('submission lifecycle: erase, unread, export ranges and the organisation export', () => {
  let s: RunningForms;
  let admin: ReturnType<typeof client>;
  let receiver: Receiver;
  // The server's clock: each submission below is received on a day of its own.
  let clock = Date.UTC(2026, 0, 10, 12);
  const submit = async (form: string, answers: Record<string, unknown>, day: number) => {
    clock = Date.UTC(2026, 0, day, 12);
    const r = await client(s.url, null)<{ id: string }>(
      'POST',
      `/api/orgs/acme/forms/${form}/submissions`,
      answers,
      { origin: site },
    );
    expect(r.status).toBe(200);
    return r.body.id;
  };
  const exportOf = async (path: string) => {
    const r = await fetch(`${s.url}${path}`, {
      headers: { authorization: `Bearer ${adminToken}` },
    });
    return { status: r.status, text: await r.text(), headers: r.headers };
  };
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    // The receiver refuses every attempt, so each submission has outbox rows and a delivery log.
    receiver = await startReceiver(0, [503]);
    s = await startForms({
      config: { ingestRateLimitPerMinute: 0 },
      deps: { now: () => clock, retrySchedule: [60_000] },
    });
    admin = client(s.url);
    await seedForm(s.url, { webhooks: [{ url: receiver.url, secret: 's' }] });
    await seedForm(s.url, { form: 'other' });
    ids.jan10 = await submit('contact', { name: 'Ada', email: 'ada@example.com' }, 10);
    ids.jan20 = await submit('contact', { name: 'Grace', topics: ['a'] }, 20);
    ids.jan25 = await submit('other', { name: 'Other', email: 'o@example.com' }, 25);
    ids.jan31 = await submit('contact', { name: 'Katherine' }, 31);
  });
  afterAll(async () => {
    await s.close();
    await receiver.close();
  });

  test('DELETE erases the submission with its outbox rows and delivery log', async () => {
    const id = ids.jan20!;
    // Wait until the first attempt has been logged.
    const [delivery] = await waitFor(async () => {
      const ds = await s.store.deliveries.ofSubmission(id);
      return ds.length === 1 && ds[0]!.attempts >= 1 ? ds : undefined;
    });
    expect(await s.store.deliveries.attempts(delivery!.id)).not.toEqual([]);

    expect((await admin('DELETE', `${formPath}/submissions/${id}`)).status).toBe(204);
    expect((await admin('GET', `${formPath}/submissions/${id}`)).status).toBe(404);
    expect(await s.store.deliveries.ofSubmission(id)).toEqual([]);
    expect(await s.store.deliveries.attempts(delivery!.id)).toEqual([]);
    // Gone from both feeds, the counts and every export.
    const feed = await admin<{ submissions: { id: string }[] }>(
      'GET',
      '/api/orgs/acme/submissions?includeSpam=true',
    );
    expect(feed.body.submissions.map((x) => x.id)).not.toContain(id);
    const forms = await admin<{ forms: { id: string; submissions: number }[] }>(
      'GET',
      '/api/orgs/acme/forms',
    );
    expect(forms.body.forms.find((f) => f.id === 'contact')?.submissions).toBe(2);
    for (const path of [
      `${formPath}/submissions/export`,
      `${formPath}/submissions/export?format=json`,
      '/api/orgs/acme/submissions/export',
    ]) {
      expect((await exportOf(path)).text).not.toContain(id);
    }
    // The others keep theirs; a second DELETE, or one through another form, is a 404.
    expect(await s.store.deliveries.ofSubmission(ids.jan10!)).toHaveLength(1);
    expect((await admin('DELETE', `${formPath}/submissions/${id}`)).status).toBe(404);
    expect(
      (await admin('DELETE', `/api/orgs/acme/forms/other/submissions/${ids.jan10!}`)).status,
    ).toBe(404);
    expect((await admin('GET', `${formPath}/submissions/${ids.jan10!}`)).status).toBe(200);
    const anon = await client(s.url, null)('DELETE', `${formPath}/submissions/${ids.jan10!}`);
    expect(anon.status).toBe(401);
  });

  test('POST .../unread marks a read submission unread again', async () => {
    const path = `${formPath}/submissions/${ids.jan10!}`;
    expect((await admin('POST', `${path}/read`)).body).toEqual({ id: ids.jan10, read: true });
    const unread = await admin('POST', `${path}/unread`);
    expect(unread.status).toBe(200);
    expect(unread.body).toEqual({ id: ids.jan10, read: false });
    expect((await admin('GET', path)).body.read).toBe(false);
    const forms = await admin<{ forms: { id: string; unread: number }[] }>(
      'GET',
      '/api/orgs/acme/forms',
    );
    expect(forms.body.forms.find((f) => f.id === 'contact')?.unread).toBe(2);
    expect((await admin('POST', `${formPath}/submissions/sub_nope/unread`)).status).toBe(404);
  });

  test('export takes since (included) and until (excluded) as ISO 8601 dates or times', async () => {
    const json = async (query: string) => {
      const r = await exportOf(`${formPath}/submissions/export?format=json&${query}`);
      expect(r.status).toBe(200);
      return (JSON.parse(r.text) as { id: string }[]).map((x) => x.id);
    };
    expect(await json('since=2026-01-11')).toEqual([ids.jan31]);
    expect(await json('until=2026-01-31')).toEqual([ids.jan10]);
    expect(await json('since=2026-01-10T12:00:00Z&until=2026-01-31T12:00:00.000Z')).toEqual([
      ids.jan10,
    ]);
    // An offset is honoured: 13:00+01:00 is 12:00 UTC.
    expect(await json('since=2026-01-31T13:00%2B01:00')).toEqual([ids.jan31]);
    expect(await json('since=2026-01-31T12:00:00.001Z')).toEqual([]);
    const csv = parseCsv((await exportOf(`${formPath}/submissions/export?until=2026-01-11`)).text);
    expect(csv.map((row) => row[0])).toEqual(['id', ids.jan10]);

    for (const [query, error] of [
      ['since=yesterday', 'since must be an ISO 8601 date or date-time'],
      ['until=2026-13-01', 'until must be an ISO 8601 date or date-time'],
      ['until=31/01/2026', 'until must be an ISO 8601 date or date-time'],
      ['since=2026-02-01&until=2026-01-01', 'since must be before until'],
    ] as const) {
      const r = await admin('GET', `${formPath}/submissions/export?${query}`);
      expect(r.status, query).toBe(400);
      expect(r.body.error).toMatch(new RegExp(`^${error}`));
    }
  });

  test('the organisation export holds every form, with a form column', async () => {
    const r = await exportOf('/api/orgs/acme/submissions/export');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-disposition')).toMatch(
      /^attachment; filename="acme-submissions-\d{4}-\d{2}-\d{2}\.csv"$/,
    );
    const [header, ...rows] = parseCsv(r.text);
    expect(header).toEqual([
      'id',
      'form',
      'receivedAt',
      'read',
      'spam',
      'definitionVersion',
      'name',
      'email',
      'message',
      'topics',
      'origin',
      'referer',
      'userAgent',
      'ip',
    ]);
    expect(rows.map((row) => [row[0], row[1], row[6]])).toEqual([
      [ids.jan10, 'contact', 'Ada'],
      [ids.jan25, 'other', 'Other'],
      [ids.jan31, 'contact', 'Katherine'],
    ]);
    const ranged = await exportOf(
      '/api/orgs/acme/submissions/export?format=json&since=2026-01-20&until=2026-01-31',
    );
    expect(ranged.headers.get('content-disposition')).toMatch(/acme-submissions-.*\.json"$/);
    const records = JSON.parse(ranged.text) as { id: string; form: string; answers: unknown }[];
    expect(records.map((x) => [x.id, x.form, x.answers])).toEqual([
      [ids.jan25, 'other', { name: 'Other', email: 'o@example.com' }],
    ]);
    // An organisation token exports its own organisation only.
    const token = await admin<{ token: string }>('POST', '/api/orgs/acme/tokens', { label: 'x' });
    await admin('POST', '/api/orgs', { slug: 'globex', name: 'Globex' });
    const other = await fetch(`${s.url}/api/orgs/globex/submissions/export`, {
      headers: { authorization: `Bearer ${token.body.token}` },
    });
    expect(other.status).toBe(403);
    expect((await admin('GET', '/api/orgs/acme/submissions/export?format=xml')).body).toEqual({
      error: 'format must be csv or json',
    });
  });
});

describe('retentionDays', () => {
  test('a sweeper deletes submissions older than the form keeps them, with their deliveries', async () => {
    const day = (d: number) => Date.UTC(2026, 0, 1) + d * 86_400_000;
    let clock = day(0);
    const s = await startForms({
      config: { ingestRateLimitPerMinute: 0 },
      deps: { now: () => clock, retentionSweepMs: 50, retrySchedule: [3_600_000] },
    });
    const admin = client(s.url);
    try {
      await seedForm(s.url, { webhooks: [{ url: 'http://127.0.0.1:9/closed', secret: 's' }] });
      await seedForm(s.url, { form: 'other' });
      const submit = async (form: string, d: number) => {
        clock = day(d);
        const r = await client(s.url, null)<{ id: string }>(
          'POST',
          `/api/orgs/acme/forms/${form}/submissions`,
          { name: `day ${String(d)}` },
          { origin: site },
        );
        expect(r.status).toBe(200);
        return r.body.id;
      };
      const old = await submit('contact', 1);
      const recent = await submit('contact', 40);
      const otherOld = await submit('other', 1);

      for (const retentionDays of [0, 1.5, '30', 40000]) {
        const bad = await admin('PATCH', formPath, { retentionDays });
        expect(bad.body).toEqual({
          error: 'retentionDays must be a whole number of days from 1 to 36500, or null',
        });
      }
      const set = await admin('PATCH', formPath, { retentionDays: 30 });
      expect(set.body.retentionDays).toBe(30);
      clock = day(45); // day 1 is now 44 days old, day 40 five
      const left = await waitFor(async () => {
        const feed = await admin<{ submissions: { id: string }[] }>(
          'GET',
          '/api/orgs/acme/submissions?includeSpam=true',
        );
        const ids = feed.body.submissions.map((x) => x.id);
        return ids.includes(old) ? undefined : ids;
      });
      // The form without retention keeps its old one.
      expect(left.sort()).toEqual([recent, otherOld].sort());
      expect(await s.store.deliveries.ofSubmission(old)).toEqual([]);
      expect(await s.store.deliveries.ofSubmission(recent)).toHaveLength(1);
      // PUT replaces the form: without retentionDays it keeps everything again.
      const put = await admin('PUT', formPath, { allowedOrigins: [site] });
      expect(put.body.retentionDays).toBeNull();
    } finally {
      await s.close();
    }
  });
});
