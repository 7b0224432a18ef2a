import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ConfigError } from '@havn/shared';
import { loadConfig } from '../config.js';
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

/** A GET with a Host header of the test's choosing (fetch sets its own). */
function getWithHost(
  base: string,
  path: string,
  host: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const { port } = new URL(base);
    const req = request({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

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

  // docs/forms.md#open-mode: a page that rebinds its own name to 127.0.0.1 sends that name as the
  // Host; with no token to check, only names the server was told about are answered.
  test('refuses a Host that is neither loopback nor configured (DNS rebinding)', async () => {
    const s = await startForms({
      config: {
        adminToken: undefined,
        publicBaseUrl: 'https://forms.example.test',
        allowedPublicHosts: ['dev.test', '.lan.test'],
      },
    });
    const { port } = new URL(s.url);
    const get = (path: string, host: string) => getWithHost(s.url, path, host);
    try {
      expect(await get('/api/orgs', `rebind.test:${port}`)).toEqual({
        status: 403,
        body: JSON.stringify({
          error: `host "rebind.test:${port}" is not allowed: use a loopback address or add the name to ALLOWED_PUBLIC_HOSTS`,
        }),
      });
      // Every route, the public ones and the web app included: the page would read them too.
      expect((await get('/api/health', 'rebind.test')).status).toBe(403);
      expect((await get('/', 'rebind.test')).status).toBe(403);
      for (const host of [
        `127.0.0.1:${port}`,
        `localhost:${port}`,
        'forms.example.test',
        'dev.test:8080',
        'box.lan.test',
      ]) {
        expect((await get('/api/orgs', host)).status, host).toBe(200);
      }
    } finally {
      await s.close();
    }
    // With a token the token is the check, and any Host is answered.
    const guarded = await startForms();
    try {
      expect((await getWithHost(guarded.url, '/api/health', 'rebind.test')).status).toBe(200);
    } finally {
      await guarded.close();
    }
  });

  test('ALLOWED_PUBLIC_HOSTS takes host names only, and names the bad one', () => {
    expect(loadConfig({ ALLOWED_PUBLIC_HOSTS: 'Dev.Test, .lan.test' }).allowedPublicHosts).toEqual([
      'dev.test',
      '.lan.test',
    ]);
    expect(() => loadConfig({ ALLOWED_PUBLIC_HOSTS: 'http://dev.test' })).toThrow(ConfigError);
    expect(() => loadConfig({ ALLOWED_PUBLIC_HOSTS: 'http://dev.test' })).toThrow(
      'ALLOWED_PUBLIC_HOSTS must list host names such as forms.example.com or .example.com (got "http://dev.test")',
    );
  });
});
