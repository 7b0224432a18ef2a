import { afterEach, expect, test } from 'vitest';
import { SETUP_FAILURES_PER_WINDOW } from '../services/setup.service.js';
import { client, startForms, type RunningForms } from '../test-support/forms-server.js';

// docs/forms.md#first-run-and-setup-links: a one-time code creates an organisation and its first
// token, without the admin token in a browser.

let s: RunningForms | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

/** A server whose clock the test moves. */
async function start() {
  let clock = Date.parse('2026-11-26T12:00:00Z');
  s = await startForms({ deps: { now: () => clock } });
  return {
    s,
    advance: (ms: number) => {
      clock += ms;
    },
    anon: client(s.url, null),
    admin: client(s.url),
  };
}

const codeOf = (link: string | undefined) => {
  const m = /\/#\/setup\/([\w-]+)$/.exec(link ?? '');
  if (!m?.[1]) throw new Error(`no setup link: ${String(link)}`);
  return m[1];
};

test('a first-run link creates the first organisation, signs in with a fresh token, and works once', async () => {
  const { s, anon } = await start();
  const link = await s.app.firstRunSetupLink(s.url);
  expect(link).toMatch(new RegExp(`^${s.url}/#/setup/[\\w-]{32}$`));
  const spare = codeOf(await s.app.firstRunSetupLink(s.url));
  const code = codeOf(link);

  const done = await anon<{ org: { slug: string; name: string }; token: string }>(
    'POST',
    '/api/setup',
    { code, slug: 'acme', name: 'Acme Ltd' },
  );
  expect(done.status).toBe(201);
  expect(done.body.org).toMatchObject({ slug: 'acme', name: 'Acme Ltd' });
  expect(done.body.token).toMatch(/^havn_/);
  const own = client(s.url, done.body.token);
  expect((await own('GET', '/api/orgs/acme/forms')).status).toBe(200);
  expect((await own('GET', '/api/orgs/acme/tokens')).body).toMatchObject({
    tokens: [{ label: 'Inbox (setup link)' }],
  });

  // Used once; and every other first-run code is void now that an organisation exists.
  for (const again of [code, spare]) {
    const r = await anon('POST', '/api/setup', { code: again, slug: 'other', name: 'Other' });
    expect(r.status).toBe(404);
    expect(r.body.error).toMatch(/^setup is closed/);
  }
  expect(await s.app.firstRunSetupLink(s.url)).toBeUndefined();
  expect((await client(s.url)('GET', '/api/orgs')).body).toMatchObject({
    orgs: [{ slug: 'acme' }],
  });
});

test('the admin makes setup links for new organisations; an organisation token cannot', async () => {
  const { s, anon, admin } = await start();
  await admin('POST', '/api/orgs', { slug: 'acme', name: 'Acme' });
  const minted = await admin<{ token: string }>('POST', '/api/orgs/acme/tokens', { label: 't' });
  expect((await anon('POST', '/api/setup-links')).status).toBe(401);
  const refused = await client(s.url, minted.body.token)('POST', '/api/setup-links');
  expect(refused.status).toBe(403);
  expect(refused.body.error).toBe('only the admin token can make setup links');

  const made = await admin<{ url: string; expiresAt: string }>('POST', '/api/setup-links');
  expect(made.status).toBe(201);
  expect(made.body.expiresAt).toBe('2026-11-26T13:00:00.000Z');
  const code = codeOf(made.body.url);
  // A taken slug keeps the code usable.
  const taken = await anon('POST', '/api/setup', { code, slug: 'acme', name: 'Again' });
  expect(taken.status).toBe(409);
  expect(taken.body.error).toBe('organisation slug acme is taken');
  const bad = await anon('POST', '/api/setup', { code, slug: 'Not A Slug', name: 'x' });
  expect(bad.status).toBe(400);
  expect(bad.body.error).toMatch(/slug/);
  const done = await anon('POST', '/api/setup', { code, slug: 'globex', name: 'Globex' });
  expect(done.status).toBe(201);
  expect((await anon('POST', '/api/setup', { code, slug: 'third', name: 'T' })).status).toBe(404);
});

test('a link stops working after an hour', async () => {
  const { s, anon, advance } = await start();
  const code = codeOf(await s.app.firstRunSetupLink(s.url));
  advance(3_600_000);
  const r = await anon('POST', '/api/setup', { code, slug: 'acme', name: 'Acme' });
  expect(r.status).toBe(404);
});

test('a brute force of 100 wrong codes is refused with 429 after the first few, even the right code, until the window ends', async () => {
  const { s, anon, advance } = await start();
  const code = codeOf(await s.app.firstRunSetupLink(s.url));
  const statuses: number[] = [];
  let retryAfter: string | null = null;
  for (let i = 0; i < 100; i++) {
    // The right code with its last character changed: as near as a guess gets.
    const wrong = `${code.slice(0, -1)}${code.endsWith('A') ? 'B' : 'A'}${i === 0 ? '' : String(i)}`;
    const r = await anon('POST', '/api/setup', { code: wrong, slug: 'acme', name: 'Acme' });
    statuses.push(r.status);
    retryAfter = r.headers.get('retry-after');
  }
  expect(statuses.slice(0, SETUP_FAILURES_PER_WINDOW)).toEqual(
    Array(SETUP_FAILURES_PER_WINDOW).fill(403),
  );
  expect(new Set(statuses.slice(SETUP_FAILURES_PER_WINDOW))).toEqual(new Set([429]));
  expect(Number(retryAfter)).toBeGreaterThan(500);
  const locked = await anon('POST', '/api/setup', { code, slug: 'acme', name: 'Acme' });
  expect(locked.status).toBe(429);
  expect(locked.body.error).toMatch(/^too many wrong setup codes from this address/);

  advance(10 * 60_000);
  const done = await anon('POST', '/api/setup', { code, slug: 'acme', name: 'Acme' });
  expect(done.status).toBe(201);
});
