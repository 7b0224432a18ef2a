import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { adminToken, client, startForms, type RunningForms } from '../test-support/forms-server.js';

describe('organisations and tokens', () => {
  let s: RunningForms;
  let admin: ReturnType<typeof client>;
  beforeAll(async () => {
    s = await startForms();
    admin = client(s.url);
  });
  afterAll(async () => {
    await s.close();
  });

  test('admin creates organisations; slugs are unique; bad bodies name the field', async () => {
    const created = await admin('POST', '/api/orgs', { slug: 'acme', name: 'Acme' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ slug: 'acme', name: 'Acme' });
    expect((await admin('POST', '/api/orgs', { slug: 'acme', name: 'Again' })).status).toBe(409);
    const bad = await admin('POST', '/api/orgs', { slug: 'Not A Slug', name: 'x' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/slug/);
    const missing = await admin('POST', '/api/orgs', { slug: 'other' });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatch(/name/);
    const renamed = await admin('PUT', '/api/orgs/acme', { name: 'Acme Inc' });
    expect(renamed.body).toMatchObject({ slug: 'acme', name: 'Acme Inc' });
    expect((await admin('GET', '/api/orgs/acme')).body.name).toBe('Acme Inc');
    expect((await admin('GET', '/api/orgs/nobody')).status).toBe(404);
  });

  test('missing or wrong tokens answer 401 with a JSON error', async () => {
    const anon = client(s.url, null);
    const r = await anon('GET', '/api/orgs');
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ error: 'missing bearer token' });
    expect((await client(s.url, 'wrong')('GET', '/api/orgs')).status).toBe(401);
    expect((await client(s.url, `${adminToken}x`)('GET', '/api/orgs/acme')).status).toBe(401);
  });

  test('organisation tokens: shown once, scoped to their organisation, never listed', async () => {
    await admin('POST', '/api/orgs', { slug: 'globex', name: 'Globex' });
    const minted = await admin<{ id: string; token: string }>('POST', '/api/orgs/acme/tokens', {
      label: 'inbox',
    });
    expect(minted.status).toBe(201);
    expect(Object.keys(minted.body).sort()).toEqual(['createdAt', 'id', 'label', 'token']);
    const token = minted.body.token;
    const acme = client(s.url, token);

    // Its own organisation: everything under /api/orgs/acme/.
    expect((await acme('GET', '/api/orgs/acme')).status).toBe(200);
    expect((await acme('PUT', '/api/orgs/acme/forms/f1', { name: 'F1' })).status).toBe(200);
    expect((await acme('POST', '/api/orgs/acme/tokens', { label: 'second' })).status).toBe(201);
    const own = await acme<{ orgs: { slug: string }[] }>('GET', '/api/orgs');
    expect(own.body.orgs.map((o) => o.slug)).toEqual(['acme']);

    // Another organisation, existing or not: 403; creating organisations: admin only.
    for (const path of ['/api/orgs/globex', '/api/orgs/globex/forms', '/api/orgs/nobody/forms']) {
      const r = await acme('GET', path);
      expect(r.status).toBe(403);
      expect(r.body.error).toMatch(/organisation/);
    }
    expect((await acme('PUT', '/api/orgs/globex/forms/x', { name: 'X' })).status).toBe(403);
    expect((await acme('POST', '/api/orgs', { slug: 'mine', name: 'Mine' })).status).toBe(403);

    // No listing ever holds the token or its hash.
    const { sha256Hex } = await import('@havn/shared');
    for (const path of ['/api/orgs', '/api/orgs/acme', '/api/orgs/acme/tokens']) {
      const text = JSON.stringify((await admin('GET', path)).body);
      expect(text).not.toContain(token);
      expect(text).not.toContain(sha256Hex(token));
      expect(text).not.toMatch(/hash/i);
    }
    const tokens = await admin<{ tokens: { label: string }[] }>('GET', '/api/orgs/acme/tokens');
    expect(tokens.body.tokens.map((t) => t.label)).toEqual(['inbox', 'second']);

    // Revoked tokens stop working.
    expect((await admin('DELETE', `/api/orgs/acme/tokens/${minted.body.id}`)).status).toBe(204);
    expect((await acme('GET', '/api/orgs/acme')).status).toBe(401);
  });
});

describe('open mode', () => {
  test('without FORM_ADMIN_TOKEN every admin route is open and the header ignored', async () => {
    const s = await startForms({ config: { adminToken: undefined } });
    try {
      const anon = client(s.url, null);
      expect((await anon('POST', '/api/orgs', { slug: 'open', name: 'Open' })).status).toBe(201);
      expect((await client(s.url, 'whatever')('GET', '/api/orgs/open')).status).toBe(200);
    } finally {
      await s.close();
    }
  });
});
