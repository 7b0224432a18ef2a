import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  adminToken,
  client,
  sampleDefinition,
  seedForm,
  startForms,
  type RunningForms,
} from '../test-support/forms-server.js';

const site = 'http://site.test';
const formPath = '/api/orgs/acme/forms/contact';

/** A plain HTML form's post, as a browser sends it (redirects left to the test). */
function post(s: RunningForms, body: string, headers: Record<string, string> = { origin: site }) {
  return fetch(`${s.url}${formPath}/submissions`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body,
  });
}

describe('plain HTML posts', () => {
  let s: RunningForms;
  let admin: ReturnType<typeof client>;
  const stored = async (location: string | null) => {
    const feed = await admin<{ submissions: { id: string }[] }>(
      'GET',
      `${formPath}/submissions?includeSpam=true&limit=1`,
    );
    expect(location).not.toBeNull();
    return admin<Record<string, unknown>>(
      'GET',
      `${formPath}/submissions/${feed.body.submissions[0]!.id}`,
    );
  };

  beforeAll(async () => {
    s = await startForms({ config: { ingestRateLimitPerMinute: 0 } });
    admin = client(s.url);
    await seedForm(s.url);
  });
  afterAll(async () => {
    await s.close();
  });

  test('a urlencoded post is stored like a JSON one and answers 303 to the thanks page', async () => {
    const raw =
      'name=Ada+L%C3%B8velace&email=ada%40example.com&message=Hi%0D%0Athere&topics=a' +
      '&submitFields.source=website&_gotcha=';
    const r = await post(s, raw);
    expect(r.status).toBe(303);
    const location = r.headers.get('location');
    expect(location).toBe(`${s.url}/f/acme/contact/thanks`);
    expect(r.headers.get('access-control-allow-origin')).toBe(site);
    const full = await stored(location);
    expect(full.body).toMatchObject({
      answers: {
        name: 'Ada Løvelace',
        email: 'ada@example.com',
        message: 'Hi\r\nthere',
        topics: ['a'],
      },
      submitFields: { source: 'website', _gotcha: '' },
      spam: false,
      origin: site,
      body: raw,
    });
    const thanks = await fetch(location!);
    expect(thanks.status).toBe(200);
    expect(thanks.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await thanks.text()).toContain(`<p>${sampleDefinition.thanks}</p>`);
  });

  test('repeated fields are arrays, for multiple-choice questions only; the honeypot marks spam', async () => {
    const two = await post(s, 'name=Grace&topics=a&topics=b');
    expect(two.status).toBe(303);
    expect((await stored(two.headers.get('location'))).body).toMatchObject({
      answers: { name: 'Grace', topics: ['a', 'b'] },
    });
    const bad = await post(s, 'name=A&name=B');
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({
      error: 'name must be a single value; only a multiple-choice question takes an array',
    });
    const spam = await post(s, 'name=Bot&_gotcha=http%3A%2F%2Fspam.example');
    expect(spam.status).toBe(303);
    expect((await stored(spam.headers.get('location'))).body).toMatchObject({ spam: true });
  });

  test('the same origin gate: another origin or none is 403, and nothing is stored', async () => {
    const before = (
      await admin<{ submissions: unknown[] }>('GET', `${formPath}/submissions?includeSpam=true`)
    ).body.submissions.length;
    expect((await post(s, 'name=A', { origin: 'http://evil.test' })).status).toBe(403);
    expect((await post(s, 'name=A', {})).status).toBe(403);
    const after = (
      await admin<{ submissions: unknown[] }>('GET', `${formPath}/submissions?includeSpam=true`)
    ).body.submissions.length;
    expect(after).toBe(before);
    // Only ingest takes a form body; admin routes still want JSON.
    const put = await fetch(`${s.url}${formPath}`, {
      method: 'PUT',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Bearer ${adminToken}`,
      },
      body: 'name=X',
    });
    expect(put.status).toBe(415);
  });

  test('multipart text fields are taken like urlencoded ones; a file part is 415 naming it', async () => {
    const part = (name: string, value: string, file?: string) =>
      `--b0undary\r\nContent-Disposition: form-data; name="${name}"` +
      (file ? `; filename="${file}"\r\nContent-Type: text/plain` : '') +
      `\r\n\r\n${value}\r\n`;
    const headers = { origin: site, 'content-type': 'multipart/form-data; boundary=b0undary' };
    const raw = `${part('name', 'Dorothy')}${part('topics', 'b')}${part('_gotcha', '')}--b0undary--\r\n`;
    const r = await post(s, raw, headers);
    expect(r.status).toBe(303);
    expect((await stored(r.headers.get('location'))).body).toMatchObject({
      answers: { name: 'Dorothy', topics: ['b'] },
      submitFields: { _gotcha: '' },
      body: raw,
    });
    const before = (
      await admin<{ submissions: unknown[] }>('GET', `${formPath}/submissions?includeSpam=true`)
    ).body.submissions.length;
    const file = await post(
      s,
      `${part('name', 'Mary')}${part('attachment', 'secret', 'cv.txt')}--b0undary--\r\n`,
      headers,
    );
    expect(file.status).toBe(415);
    expect(await file.json()).toEqual({
      error: 'attachment is a file, but not a file question of this form',
    });
    const after = (
      await admin<{ submissions: unknown[] }>('GET', `${formPath}/submissions?includeSpam=true`)
    ).body.submissions.length;
    expect(after).toBe(before);
  });

  test('redirectUrl must be on an allowed origin; a post is sent there', async () => {
    const off = await admin('PATCH', formPath, { redirectUrl: 'https://elsewhere.example/thanks' });
    expect(off.status).toBe(400);
    expect(off.body.error).toBe(
      "redirectUrl must be on one of the form's allowedOrigins (got https://elsewhere.example/thanks)",
    );
    const set = await admin('PATCH', formPath, { redirectUrl: `${site}/thanks.html?from=havn` });
    expect(set.status).toBe(200);
    expect(set.body.redirectUrl).toBe(`${site}/thanks.html?from=havn`);
    const r = await post(s, 'name=Katherine');
    expect(r.status).toBe(303);
    expect(r.headers.get('location')).toBe(`${site}/thanks.html?from=havn`);
    // Dropping the origin the redirect is on is refused; clearing the redirect is not.
    const drop = await admin('PATCH', formPath, { allowedOrigins: ['https://other.example'] });
    expect(drop.status).toBe(400);
    expect(drop.body.error).toMatch(/^redirectUrl must be on one of the form's allowedOrigins/);
    const cleared = await admin('PATCH', formPath, { redirectUrl: null });
    expect(cleared.body.redirectUrl).toBeNull();
    // A PUT replaces the form: without redirectUrl it has none.
    const put = await admin('PUT', formPath, {
      allowedOrigins: [site],
      redirectUrl: `${site}/done`,
    });
    expect(put.body.redirectUrl).toBe(`${site}/done`);
    expect((await admin('PUT', formPath, { allowedOrigins: [site] })).body.redirectUrl).toBeNull();
  });
});

test('plain HTML posts count against the same rate limit', async () => {
  const s = await startForms({ config: { ingestRateLimitPerMinute: 1 } });
  try {
    await seedForm(s.url);
    expect((await post(s, 'name=A')).status).toBe(303);
    const second = await post(s, 'name=B');
    expect(second.status).toBe(429);
    expect(second.headers.get('retry-after')).toMatch(/^\d+$/);
  } finally {
    await s.close();
  }
});
