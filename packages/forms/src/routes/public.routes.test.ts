import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  client,
  sampleDefinition,
  seedForm,
  startForms,
  type RunningForms,
} from '../test-support/forms-server.js';

const site = 'http://site.test';
const submitPath = '/api/orgs/acme/forms/contact/submissions';
const definitionPath = '/api/orgs/acme/forms/contact/definition';

describe('public endpoints', () => {
  let s: RunningForms;
  let anon: ReturnType<typeof client>;
  let admin: ReturnType<typeof client>;
  const count = async () => {
    const r = await admin<{ submissions: unknown[] }>(
      'GET',
      `${submitPath}?limit=500&includeSpam=true`,
    );
    return r.body.submissions.length;
  };

  beforeAll(async () => {
    s = await startForms({ config: { ingestRateLimitPerMinute: 0 } });
    anon = client(s.url, null);
    admin = client(s.url);
    await seedForm(s.url, { origin: site });
  });
  afterAll(async () => {
    await s.close();
  });

  test('definition: served with the submit block; exact-origin credentialed CORS', async () => {
    const r = await anon<Record<string, unknown>>('GET', definitionPath, undefined, {
      origin: site,
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      ...sampleDefinition,
      submit: { submitUrl: `${s.url}${submitPath}`, submitMethod: 'POST' },
    });
    expect(r.headers.get('access-control-allow-origin')).toBe(site);
    expect(r.headers.get('access-control-allow-credentials')).toBe('true');
    expect(r.headers.get('vary')).toMatch(/Origin/);

    // A same-origin preview (no Origin) is served, without CORS headers.
    const preview = await anon('GET', definitionPath);
    expect(preview.status).toBe(200);
    expect(preview.headers.get('access-control-allow-origin')).toBeNull();

    // Another origin: 403, no CORS headers at all, never `*`.
    const evil = await anon('GET', definitionPath, undefined, { origin: 'http://evil.test' });
    expect(evil.status).toBe(403);
    expect(evil.body).toEqual({ error: 'origin http://evil.test is not allowed for this form' });
    expect(evil.headers.get('access-control-allow-origin')).toBeNull();
    expect((await anon('GET', '/api/orgs/acme/forms/nope/definition')).status).toBe(404);
  });

  test('preflight: 204 echoing origin, methods and requested headers; 403 otherwise', async () => {
    const ok = await anon('OPTIONS', submitPath, undefined, {
      origin: site,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type',
    });
    expect(ok.status).toBe(204);
    expect(ok.headers.get('access-control-allow-origin')).toBe(site);
    expect(ok.headers.get('access-control-allow-credentials')).toBe('true');
    expect(ok.headers.get('access-control-allow-methods')).toMatch(/POST/);
    expect(ok.headers.get('access-control-allow-headers')).toBe('content-type');
    expect(ok.headers.get('vary')).toMatch(/Origin/);
    const def = await anon('OPTIONS', definitionPath, undefined, {
      origin: site,
      'access-control-request-method': 'GET',
    });
    expect(def.status).toBe(204);
    expect(def.headers.get('access-control-allow-methods')).toMatch(/GET/);
    const bad = await anon('OPTIONS', submitPath, undefined, {
      origin: 'http://evil.test',
      'access-control-request-method': 'POST',
    });
    expect(bad.status).toBe(403);
    expect(bad.headers.get('access-control-allow-origin')).toBeNull();
  });

  test('ingest stores the parsed answers, the raw bytes untouched and the metadata', async () => {
    // Odd spacing, key order, unicode escapes: the stored body must be these exact bytes.
    const raw =
      '{ "name" : "Ad\\u00e5",\n  "email":"ada@example.com", "topics": ["a","b"], "seats": 3,' +
      ' "terms": true, "submitFields": {"source": "website", "_gotcha": ""} }';
    const r = await anon<{ status: string; id: string }>('POST', submitPath, raw, {
      origin: site,
      referer: `${site}/contact`,
      'user-agent': 'TestAgent/1.0',
    });
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('received');
    expect(r.headers.get('access-control-allow-origin')).toBe(site);
    const full = await admin<Record<string, unknown>>('GET', `${submitPath}/${r.body.id}`);
    expect(full.body).toMatchObject({
      id: r.body.id,
      org: 'acme',
      form: 'contact',
      read: false,
      spam: false,
      answers: { name: 'Adå', email: 'ada@example.com', topics: ['a', 'b'], seats: 3, terms: true },
      submitFields: { source: 'website', _gotcha: '' },
      origin: site,
      referer: `${site}/contact`,
      userAgent: 'TestAgent/1.0',
      ip: '127.0.0.1',
      definitionVersion: 1,
      body: raw,
    });
    expect(full.body.preview).toMatch(/^Adå · ada@example.com/);
    const row = await s.store.submissions.get('acme', 'contact', r.body.id);
    expect(row?.body.equals(Buffer.from(raw))).toBe(true);
  });

  test('bad requests answer 400/403/413/415 and store nothing', async () => {
    const before = await count();
    const cases: [string | undefined, Record<string, string>, number, RegExp][] = [
      ['{"name": ', { origin: site }, 400, /not valid JSON/],
      ['[1,2]', { origin: site }, 400, /JSON object/],
      ['{"name": {"first": "A"}}', { origin: site }, 400, /name must be/],
      ['{"submitFields": "x"}', { origin: site }, 400, /submitFields/],
      // An array only answers a multiple-choice question (topics); not a text one, not an unknown key.
      [
        '{"name": ["A", "B"]}',
        { origin: site },
        400,
        /^name must be a single value; only a multiple-choice question takes an array$/,
      ],
      ['{"topics": ["a"], "extra": ["x"]}', { origin: site }, 400, /^extra must be a single value/],
      ['{"name": "A"}', {}, 403, /Origin/],
      ['{"name": "A"}', { origin: 'http://evil.test' }, 403, /not allowed/],
      [JSON.stringify({ big: 'x'.repeat(256 * 1024) }), { origin: site }, 413, /too large/i],
    ];
    for (const [body, headers, status, message] of cases) {
      const r = await anon<{ error: string }>('POST', submitPath, body, headers);
      expect(r.status, body?.slice(0, 40)).toBe(status);
      expect(r.body.error).toMatch(message);
    }
    const form = await fetch(`${s.url}${submitPath}`, {
      method: 'POST',
      headers: { origin: site, 'content-type': 'application/xml' },
      body: 'name=A',
    });
    expect(form.status).toBe(415);
    expect(await count()).toBe(before);
  });

  test('a form with no definition yet answers 409 and stores nothing', async () => {
    await admin('PUT', '/api/orgs/acme/forms/bare', { name: 'Bare', allowedOrigins: [site] });
    const r = await anon('POST', '/api/orgs/acme/forms/bare/submissions', '{"name":"A"}', {
      origin: site,
    });
    expect(r.status).toBe(409);
    expect(r.body).toEqual({ error: 'form has no definition yet' });
    // The answer carries CORS headers, so the page that posted can read why.
    expect(r.headers.get('access-control-allow-origin')).toBe(site);
    const feed = await admin<{ submissions: unknown[] }>(
      'GET',
      '/api/orgs/acme/forms/bare/submissions?includeSpam=true',
    );
    expect(feed.body.submissions).toEqual([]);
    // The gate still comes first: another origin is 403, not 409.
    const evil = await anon('POST', '/api/orgs/acme/forms/bare/submissions', '{"name":"A"}', {
      origin: 'http://evil.test',
    });
    expect(evil.status).toBe(403);
    // Once it has one, the same post is taken, and a multiple-choice answer may be an array.
    await admin('PUT', '/api/orgs/acme/forms/bare/definition', sampleDefinition);
    const ok = await anon('POST', '/api/orgs/acme/forms/bare/submissions', '{"topics":["a","b"]}', {
      origin: site,
    });
    expect(ok.status).toBe(200);
  });

  test('a filled honeypot gets the normal 200, is stored as spam and leaves the feed', async () => {
    const r = await anon<{ id: string }>(
      'POST',
      submitPath,
      { name: 'Bot', submitFields: { _gotcha: 'http://spam.example' } },
      { origin: site },
    );
    expect(r.status).toBe(200);
    const full = await admin('GET', `${submitPath}/${r.body.id}`);
    expect(full.body.spam).toBe(true);
    expect(full.body.deliveries).toEqual([]);
    const feed = await admin<{ submissions: { id: string }[] }>('GET', submitPath);
    expect(feed.body.submissions.map((x) => x.id)).not.toContain(r.body.id);
  });
});

describe('behind a trusted proxy', () => {
  test('X-Forwarded-For is honoured only from TRUST_PROXY addresses', async () => {
    const trusting = await startForms({ config: { trustProxy: ['127.0.0.1'] } });
    const plain = await startForms();
    try {
      for (const [srv, expected] of [
        [trusting, '203.0.113.9'],
        [plain, '127.0.0.1'],
      ] as const) {
        await seedForm(srv.url);
        const r = await client(srv.url, null)<{ id: string }>(
          'POST',
          submitPath,
          { a: 1 },
          { origin: site, 'x-forwarded-for': '203.0.113.9' },
        );
        const full = await client(srv.url)('GET', `${submitPath}/${r.body.id}`);
        expect(full.body.ip).toBe(expected);
      }
    } finally {
      await trusting.close();
      await plain.close();
    }
  });
});

describe('rate limit', () => {
  test('the per-IP per-form rate limit answers 429 with Retry-After', async () => {
    const srv = await startForms({ config: { ingestRateLimitPerMinute: 5 } });
    try {
      await seedForm(srv.url);
      await seedForm(srv.url, { form: 'other' });
      const anon = client(srv.url, null);
      for (let i = 0; i < 5; i++) {
        expect((await anon('POST', submitPath, { n: i }, { origin: site })).status).toBe(200);
      }
      const limited = await anon('POST', submitPath, { n: 6 }, { origin: site });
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(limited.headers.get('access-control-allow-origin')).toBe(site);
      // Another form has its own budget.
      const other = '/api/orgs/acme/forms/other/submissions';
      expect((await anon('POST', other, { n: 7 }, { origin: site })).status).toBe(200);
    } finally {
      await srv.close();
    }
  });
});
