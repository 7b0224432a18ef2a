import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { client, startForms, type RunningForms } from '../test-support/forms-server.js';
import { storeUnderTest } from '../../../../test-support/test-database.js';

describe('service routes, schema and the web app', () => {
  let s: RunningForms;
  let web: string;
  beforeAll(async () => {
    web = mkdtempSync(join(tmpdir(), 'havn-web-'));
    writeFileSync(join(web, 'index.html'), '<!doctype html><title>Inbox</title>');
    writeFileSync(join(web, 'runtime.js'), 'console.log("runtime");');
    mkdirSync(join(web, 'f'));
    writeFileSync(join(web, 'f', 'index.html'), '<!doctype html><title>Hosted form</title>');
    s = await startForms({ config: { webDir: web } });
  });
  afterAll(async () => {
    await s.close();
    rmSync(web, { recursive: true, force: true });
  });

  test('health, version and VAPID key need no token', async () => {
    const anon = client(s.url, null);
    expect((await anon('GET', '/api/health')).body).toEqual({ ok: true });
    const version = await anon('GET', '/api/version');
    expect(version.body).toEqual({ version: '0.1.0', uptimeSec: expect.any(Number) as number });
    const vapid = await anon<{ publicKey: string }>('GET', '/api/push/vapid');
    expect(Buffer.from(vapid.body.publicKey, 'base64url')).toHaveLength(65);
    if (storeUnderTest() === 'sqlite') {
      // Generated on first start into USER_DATA_DIR, readable by the owner only.
      expect(statSync(join(s.dir, 'vapid.json')).mode & 0o777).toBe(0o600);
    } else {
      // In the database, where every instance sharing it finds the same pair.
      expect(existsSync(join(s.dir, 'vapid.json'))).toBe(false);
    }
  });

  test('the definition JSON Schema is published', async () => {
    const r = await client(s.url, null)<Record<string, unknown>>('GET', '/schema/definition.json');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/application\/schema\+json/);
    expect(r.body).toMatchObject({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      required: ['intro', 'questions'],
      additionalProperties: false,
    });
    expect(JSON.stringify(r.body)).toContain('"consent"');
  });

  test('WEB_DIR is served outside /api; unknown /api paths are JSON 404s', async () => {
    const index = await fetch(`${s.url}/`);
    expect(await index.text()).toContain('<title>Inbox</title>');
    const hosted = await fetch(`${s.url}/f/acme/contact`);
    expect(hosted.status).toBe(200);
    expect(await hosted.text()).toContain('Hosted form');
    const runtime = await fetch(`${s.url}/runtime.js`);
    expect(runtime.headers.get('content-type')).toMatch(/javascript/);
    for (const path of ['/api/nope', '/api/orgs/acme/forms/x/y/z', '/api']) {
      const r = await fetch(`${s.url}${path}`);
      expect(r.status).toBe(404);
      expect(r.headers.get('content-type')).toMatch(/application\/json/);
      expect(((await r.json()) as { error: string }).error).toMatch(/^no route/);
    }
  });

  test('without a built web app a placeholder page is served', async () => {
    const bare = await startForms({ config: { webDir: join(s.dir, 'missing') } });
    try {
      for (const path of ['/', '/f/acme/contact']) {
        const r = await fetch(`${bare.url}${path}`);
        expect(r.status).toBe(200);
        expect(r.headers.get('content-type')).toMatch(/text\/html/);
        expect(await r.text()).toContain('web app has not been built');
      }
    } finally {
      await bare.close();
    }
  });
});
