import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  adminToken,
  client,
  sampleDefinition,
  seedForm,
  startForms,
  type RunningForms,
} from '../test-support/forms-server.js';
import { owaspPayloads, parseCsv } from '../test-support/owasp-csv-payloads.js';

const site = 'http://site.test';
const formPath = '/api/orgs/acme/forms/contact';

describe('submissions: feeds, records, read flag, export', () => {
  let s: RunningForms;
  let admin: ReturnType<typeof client>;
  const ids: string[] = [];
  const submit = async (form: string, body: unknown) => {
    const r = await client(s.url, null)<{ id: string }>(
      'POST',
      `/api/orgs/acme/forms/${form}/submissions`,
      body,
      { origin: site },
    );
    expect(r.status).toBe(200);
    return r.body.id;
  };

  beforeAll(async () => {
    s = await startForms({ config: { ingestRateLimitPerMinute: 0 } });
    admin = client(s.url);
    await seedForm(s.url);
    await seedForm(s.url, { form: 'other' });
    ids.push(await submit('contact', { name: 'Ada', email: 'ada@example.com', message: 'hi' }));
    // Version 2 renames a question: both names become export columns.
    await admin('PUT', `${formPath}/definition`, {
      ...sampleDefinition,
      questions: [
        ...sampleDefinition.questions.slice(0, 2),
        {
          logicalName: 'topics',
          type: 'choice',
          multiple: true,
          label: 'Topics',
          options: [{ value: 'a', label: 'A' }],
        },
      ],
    });
    ids.push(
      await submit('contact', {
        name: '=HYPERLINK("x")',
        email: 'b@example.com',
        topics: ['a', 'b, c'],
        note: 'say "hi"\nbye',
      }),
    );
    ids.push(await submit('other', { name: 'Other' }));
  });
  afterAll(async () => {
    await s.close();
  });

  test('feeds are newest first, per organisation and per form, with limit', async () => {
    const all = await admin<{ submissions: { id: string; form: string }[] }>(
      'GET',
      '/api/orgs/acme/submissions',
    );
    expect(all.body.submissions.map((x) => x.id)).toEqual([...ids].reverse());
    expect(Object.keys(all.body.submissions[0]!).sort()).toEqual(
      ['form', 'id', 'org', 'preview', 'read', 'receivedAt', 'spam'].sort(),
    );
    const one = await admin<{ submissions: { id: string }[] }>(
      'GET',
      `${formPath}/submissions?limit=1`,
    );
    expect(one.body.submissions.map((x) => x.id)).toEqual([ids[1]]);
    expect((await admin('GET', `${formPath}/submissions?limit=0`)).status).toBe(400);
    expect((await admin('GET', `${formPath}/submissions?limit=many`)).status).toBe(400);
  });

  test('the full record remembers its definition version; mark read', async () => {
    const first = await admin('GET', `${formPath}/submissions/${ids[0]!}`);
    expect(first.body).toMatchObject({ definitionVersion: 1, read: false });
    const second = await admin('GET', `${formPath}/submissions/${ids[1]!}`);
    expect(second.body).toMatchObject({ definitionVersion: 2 });
    const read = await admin('POST', `${formPath}/submissions/${ids[0]!}/read`);
    expect(read.body).toEqual({ id: ids[0], read: true });
    expect((await admin('GET', `${formPath}/submissions/${ids[0]!}`)).body.read).toBe(true);
    const list = await admin<{ forms: { id: string; unread: number }[] }>(
      'GET',
      '/api/orgs/acme/forms',
    );
    expect(list.body.forms.find((f) => f.id === 'contact')).toMatchObject({ unread: 1 });
    expect((await admin('POST', `${formPath}/submissions/sub_nope/read`)).status).toBe(404);
    expect((await admin('GET', `/api/orgs/acme/forms/other/submissions/${ids[0]!}`)).status).toBe(
      404,
    );
  });

  test('CSV export: one column per logicalName across versions, RFC 4180 quoting', async () => {
    const token = await admin<{ token: string }>('POST', '/api/orgs/acme/tokens', { label: 'x' });
    const r = await fetch(`${s.url}${formPath}/submissions/export?format=csv`, {
      headers: { authorization: `Bearer ${token.body.token}` },
    });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(r.headers.get('content-disposition')).toMatch(
      /^attachment; filename="acme-contact-submissions-\d{4}-\d{2}-\d{2}\.csv"$/,
    );
    const lines = (await r.text()).split('\r\n');
    expect(lines[0]).toBe(
      'id,receivedAt,read,spam,definitionVersion,name,email,topics,message,origin,referer,userAgent,ip',
    );
    expect(lines[1]).toMatch(new RegExp(`^${ids[0]!},[^,]+,true,false,1,Ada,ada@example.com,,hi,`));
    // Formula-looking text is defused, separators and quotes are quoted.
    expect(lines[2]).toMatch(
      new RegExp(
        `^${ids[1]!},[^,]+,false,false,2,"'=HYPERLINK\\(""x""\\)",b@example.com,"a; b, c",,`,
      ),
    );
    expect(lines).toHaveLength(4); // header, two rows, trailing empty after the last CRLF
    const other = await fetch(`${s.url}/api/orgs/globex/forms/contact/submissions/export`, {
      headers: { authorization: `Bearer ${token.body.token}` },
    });
    expect(other.status).toBe(403);
  });

  test('JSON export: an array of records without raw bodies', async () => {
    const r = await admin<Record<string, unknown>[]>(
      'GET',
      `${formPath}/submissions/export?format=json`,
    );
    expect(r.headers.get('content-disposition')).toMatch(/\.json"$/);
    expect(r.body.map((x) => x.id)).toEqual(ids.slice(0, 2));
    expect(r.body[1]).toMatchObject({ answers: { note: 'say "hi"\nbye' }, definitionVersion: 2 });
    expect(r.body[0]).not.toHaveProperty('body');
    expect((await admin('GET', `${formPath}/submissions/export?format=xml`)).status).toBe(400);
  });

  test('a bad query or body answers one plain sentence naming the field', async () => {
    const cases: [string, string, unknown, string][] = [
      [
        'GET',
        `${formPath}/submissions/export?format=xlsx`,
        undefined,
        'format must be csv or json',
      ],
      ['GET', `${formPath}/submissions?limit=many`, undefined, 'limit must be an integer'],
      ['GET', `${formPath}/submissions?limit=0`, undefined, 'limit must be at least 1'],
      ['PATCH', formPath, { name: { first: 'x' } }, 'name must be a string'],
      ['PATCH', formPath, { name: 'x'.repeat(201) }, 'name must be at most 200 characters'],
      ['PUT', formPath, { webhooks: [{ secret: 'x' }] }, 'webhooks/0/url is required'],
      ['PUT', formPath, [], 'body must be an object'],
    ];
    for (const [method, path, body, error] of cases) {
      const r = await admin(method, path, body);
      expect({ path, status: r.status, body: r.body }).toEqual({
        path,
        status: 400,
        body: { error },
      });
    }
  });
  test('choices as their option labels: the feed preview, and exports with choices=labels', async () => {
    const feed = await admin<{ submissions: { id: string; preview: string }[] }>(
      'GET',
      `${formPath}/submissions`,
    );
    // "a" is an option labelled "A"; "b, c" is no option's value and stays as it is.
    expect(feed.body.submissions.find((x) => x.id === ids[1])?.preview).toContain('A, b, c');
    const csv = await fetch(`${s.url}${formPath}/submissions/export?choices=labels`, {
      headers: { authorization: `Bearer ${adminToken}` },
    });
    const rows = parseCsv(await csv.text());
    expect(rows[0]?.[7]).toBe('topics');
    expect(rows[2]?.[7]).toBe('A; b, c');
    const json = await admin<{ answers: Record<string, unknown> }[]>(
      'GET',
      `${formPath}/submissions/export?format=json&choices=labels`,
    );
    expect(json.body[1]?.answers.topics).toEqual(['A', 'b, c']);
    const org = await admin<{ form: string; answers: Record<string, unknown> }[]>(
      'GET',
      '/api/orgs/acme/submissions/export?format=json&choices=labels',
    );
    expect(org.body.find((x) => x.answers.topics)?.answers.topics).toEqual(['A', 'b, c']);
    // The default stays the stored values.
    const values = await admin<{ answers: Record<string, unknown> }[]>(
      'GET',
      `${formPath}/submissions/export?format=json&choices=values`,
    );
    expect(values.body[1]?.answers.topics).toEqual(['a', 'b, c']);
    const bad = await admin('GET', `${formPath}/submissions/export?choices=names`);
    expect({ status: bad.status, body: bad.body }).toEqual({
      status: 400,
      body: { error: 'choices must be values or labels' },
    });
  });

  test('mark all read: of the organisation up to an id, of one form, then nothing left', async () => {
    const unread = async () =>
      (
        await admin<{ forms: { id: string; unread: number }[] }>('GET', '/api/orgs/acme/forms')
      ).body.forms.map((f) => [f.id, f.unread]);
    // ids[0] is read already; ids[1] (contact) and ids[2] (other, the newest) are not.
    expect(await unread()).toEqual(
      expect.arrayContaining([
        ['contact', 1],
        ['other', 1],
      ]),
    );
    const through = await admin('POST', `/api/orgs/acme/submissions/read-all?through=${ids[1]!}`);
    expect(through.body).toEqual({ marked: 1 });
    expect(await unread()).toEqual(
      expect.arrayContaining([
        ['contact', 0],
        ['other', 1],
      ]),
    );
    const form = await admin('POST', '/api/orgs/acme/forms/other/submissions/read-all');
    expect(form.body).toEqual({ marked: 1 });
    expect((await admin('POST', '/api/orgs/acme/submissions/read-all')).body).toEqual({
      marked: 0,
    });
    const feed = await admin<{ submissions: { read: boolean }[] }>(
      'GET',
      '/api/orgs/acme/submissions',
    );
    expect(feed.body.submissions.every((x) => x.read)).toBe(true);
    const missing = await admin('POST', '/api/orgs/acme/forms/nope/submissions/read-all');
    expect(missing.status).toBe(404);
  });
});

describe('CSV export against formula injection', () => {
  let s: RunningForms;
  beforeAll(async () => {
    s = await startForms({ config: { ingestRateLimitPerMinute: 0 } });
    await seedForm(s.url);
  });
  afterAll(async () => {
    await s.close();
  });

  test('no cell of the export starts a formula, whatever the payload and wherever it lands', async () => {
    for (const payload of owaspPayloads) {
      const r = await fetch(`${s.url}${formPath}/submissions`, {
        method: 'POST',
        headers: {
          origin: site,
          'content-type': 'application/json',
          'user-agent': payload.replace(/[\t\r]/g, ' '),
          referer: `${site}/?q=${encodeURIComponent(payload)}`,
        },
        body: JSON.stringify({
          name: payload,
          email: 'x@example.com',
          message: 42,
          topics: [payload, 'a', payload],
        }),
      });
      expect(r.status).toBe(200);
    }
    const csv = await (
      await fetch(`${s.url}${formPath}/submissions/export`, {
        headers: { authorization: `Bearer ${adminToken}` },
      })
    ).text();
    const [header, ...rows] = parseCsv(csv);
    expect(rows).toHaveLength(owaspPayloads.length);
    const col = (name: string) => header!.indexOf(name);
    for (const [i, payload] of owaspPayloads.entries()) {
      const row = rows[i]!;
      for (const cell of row) expect(cell).not.toMatch(/^ *[=+\-@\t\r]/);
      expect(row[col('name')]).toBe(`'${payload}`);
      expect(row[col('topics')]).toBe(`'${payload}; a; '${payload}`);
      expect(row[col('message')]).toBe('42');
    }
  });
});
