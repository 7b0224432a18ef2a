import { get } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, TEST_TOKEN, type TestService } from './test-support/service.js';

// Auth on every route, health, profiles, 404s, OpenAPI, metrics and request logs. No render needs
// the browser here, so the browser never launches.

let svc: TestService;

beforeAll(async () => {
  svc = await startService();
});

afterAll(async () => {
  await svc.close();
});

const protectedRoutes: [string, string][] = [
  ['GET', '/v1/profiles'],
  ['POST', '/v1/render'],
  ['POST', '/v1/render/batch'],
  ['GET', '/v1/artifacts/AAAAAAAAAAAAAAAAAAAAAA'],
  ['GET', '/v1/openapi.json'],
  ['GET', '/metrics'],
];

describe('authentication', () => {
  it.each(protectedRoutes)(
    '%s %s answers 401 without a token or with a wrong one',
    async (method, path) => {
      const init =
        method === 'POST'
          ? { method, headers: { 'content-type': 'application/json' }, body: '{}' }
          : { method };
      const variants: Record<string, string>[] = [
        {},
        { authorization: 'Bearer wrong' },
        { authorization: `Basic ${TEST_TOKEN}` },
      ];
      for (const headers of variants) {
        const res = await svc.call(path, {
          ...init,
          headers: { ...init.headers, ...headers },
          auth: false,
        });
        expect(res.status).toBe(401);
        expect(await res.json()).toEqual({ error: 'missing or invalid token' });
      }
      const wrongQuery = await svc.call(`${path}?token=wrong`, { ...init, auth: false });
      expect(wrongQuery.status).toBe(401);
      await wrongQuery.arrayBuffer();
    },
  );

  it.each(protectedRoutes)('%s %s accepts the bearer header and ?token=', async (method, path) => {
    const init =
      method === 'POST'
        ? { method, headers: { 'content-type': 'application/json' }, body: '{}' }
        : { method };
    const viaHeader = await svc.call(path, init);
    const viaQuery = await svc.call(`${path}?token=${encodeURIComponent(TEST_TOKEN)}`, {
      ...init,
      auth: false,
    });
    for (const res of [viaHeader, viaQuery]) {
      expect(res.status).not.toBe(401);
      await res.arrayBuffer();
    }
  });

  it('leaves /healthz open', async () => {
    const res = await svc.call('/healthz', { auth: false });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(Number.isInteger(body.uptimeSec)).toBe(true);
    expect({ ...body, uptimeSec: 0 }).toEqual({
      ok: true,
      version: '0.0.0-test',
      sessions: 0,
      renders: { inFlight: 0, queued: 0 },
      uptimeSec: 0,
      // Each browser in a memory cgroup of its own (docs/render.md#memory-bounds).
      memoryBound: {
        enforced: true,
        cgroup: expect.stringMatching(/^v[12]$/) as string,
        bytes: expect.any(Number) as number,
      },
      // The outcome of the artifact store's last write (docs/operations.md#the-artifact-disk-is-full).
      artifactStore: { state: 'ok' },
    });
  });
});

describe('routes', () => {
  it('lists the ten built-in profiles in the documented order', async () => {
    const body = (await (await svc.call('/v1/profiles')).json()) as {
      profiles: Record<string, unknown>[];
    };
    expect(body.profiles.map((p) => p.name)).toEqual([
      'desktop',
      'desktop-dark',
      'desktop-2x',
      'laptop',
      'wide',
      'tablet',
      'mobile',
      'mobile-dark',
      'mobile-small',
      'a4',
    ]);
    for (const p of body.profiles) {
      expect(p).toMatchObject({ locale: 'da-DK', timezone: 'Europe/Copenhagen' });
      expect(Object.keys(p)).toEqual(
        expect.arrayContaining([
          'viewport',
          'deviceScaleFactor',
          'isMobile',
          'hasTouch',
          'colorScheme',
        ]),
      );
      expect(p.colorScheme).toBe(String(p.name).endsWith('-dark') ? 'dark' : 'light');
      expect(p.isMobile).toBe(
        ['tablet', 'mobile', 'mobile-dark', 'mobile-small'].includes(String(p.name)),
      );
    }
    expect(body.profiles.at(-1)).toMatchObject({ paper: { format: 'A4' } });
  });

  it('answers GET / with a page: what it is, its documents, a request to paste, no secret', async () => {
    const res = await svc.call('/', { auth: false });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await res.text();
    const base = svc.base;
    expect(html).toContain('<h1>Havn render</h1>');
    for (const path of ['/v1/openapi.json', '/healthz', '/metrics']) {
      expect(html).toContain(`<a href="${base}${path}">${path}</a>`);
    }
    expect(html).toContain(`curl -X POST ${base}/v1/render`);
    expect(html).toContain('Authorization: Bearer $(cat data/dev-token)');
    expect(html).not.toContain(TEST_TOKEN);
    // The Host header is the client's: an untrusted one never reaches the page
    // (docs/render.md#hosts-and-origins), the address the request reached does.
    // (fetch will not send another Host, so this one request goes through node:http.)
    const forged = await new Promise<string>((resolve, reject) => {
      get(`${base}/`, { headers: { host: '<b>x</b>.test' } }, (r) => {
        let text = '';
        r.on('data', (c: Buffer) => (text += c.toString()));
        r.on('end', () => {
          resolve(text);
        });
      }).on('error', reject);
    });
    expect(forged).toContain(`${base}/healthz`);
    expect(forged).not.toContain('x&#60;/b&#62;.test');
    expect(forged).not.toContain('<b>x');
  });

  it('answers 404 for unknown routes and artifacts, with a JSON error', async () => {
    // An unknown route is no catalogue error: it names no code (docs/errors.md).
    for (const [path, code] of [
      ['/nope', null],
      ['/v1/nope', null],
      ['/v1/artifacts/AAAAAAAAAAAAAAAAAAAAAA', 'RENDER_ARTIFACT_NOT_FOUND'],
      ['/v1/artifacts/..%2F..%2Fetc%2Fpasswd', 'RENDER_ARTIFACT_NOT_FOUND'],
    ] as const) {
      const res = await svc.call(path);
      expect(res.status, path).toBe(404);
      expect(res.headers.get('havn-error-code'), path).toBe(code);
      expect(Object.keys((await res.json()) as object)).toEqual(['error']);
    }
  });

  it('answers 400 for a body that is not JSON', async () => {
    const res = await svc.call('/v1/render', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{',
    });
    expect(res.status).toBe(400);
    expect(Object.keys((await res.json()) as object)).toEqual(['error']);
  });

  it('serves the OpenAPI document generated from the route schemas', async () => {
    const doc = (await (await svc.call('/v1/openapi.json')).json()) as {
      openapi: string;
      paths: Record<string, unknown>;
    };
    expect(doc.openapi).toMatch(/^3\./);
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/healthz',
        '/v1/profiles',
        '/v1/render',
        '/v1/render/batch',
        '/v1/artifacts/{id}',
        '/v1/pdf/merge',
        '/v1/content',
        '/v1/markdown',
        '/v1/links',
        '/v1/scrape',
        '/v1/snapshot',
      ]),
    );
    expect(JSON.stringify(doc.paths['/v1/render'])).toContain('waitForFonts');
    expect(JSON.stringify(doc.paths['/v1/render'])).toContain('footerTemplate');
    expect(JSON.stringify(doc.paths['/v1/scrape'])).toContain('truncated');
  });

  it('exposes Prometheus metrics', async () => {
    const res = await svc.call('/metrics');
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await res.text();
    for (const name of [
      'havn_render_duration_seconds',
      'havn_render_queue_depth',
      'havn_render_in_flight',
      'havn_render_failures_total',
    ]) {
      expect(text).toContain(`# TYPE ${name}`);
    }
  });

  it('logs one JSON line per request with status and ms, never the token', async () => {
    await (await svc.call(`/v1/profiles?token=${TEST_TOKEN}`, { auth: false })).arrayBuffer();
    const lines = svc.logs
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.msg === 'request');
    const line = lines.findLast((l) => String(l.url).startsWith('/v1/profiles?token='));
    expect(line).toMatchObject({
      method: 'GET',
      url: '/v1/profiles?token=[redacted]',
      status: 200,
    });
    expect(typeof line?.ms).toBe('number');
    expect(svc.logs.join('\n')).not.toContain(TEST_TOKEN);
  });

  it('refuses a token named twice or spelled otherwise, and never logs it', async () => {
    for (const query of [
      `%74oken=${TEST_TOKEN}`,
      `TOKEN=${TEST_TOKEN}`,
      `token=${TEST_TOKEN}&token=${TEST_TOKEN}`,
      `token=${TEST_TOKEN}&%74oken=wrong`,
    ]) {
      const res = await svc.call(`/v1/profiles?${query}`, { auth: false });
      expect(res.status, query).toBe(401);
      expect(res.headers.get('havn-error-code'), query).toBe('RENDER_TOKEN_INVALID');
      await res.arrayBuffer();
    }
    expect(svc.logs.join('\n')).not.toContain(TEST_TOKEN);
    // The request line names the failure by its code.
    const refused = svc.logs
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .findLast((l) => l.msg === 'request' && String(l.url).startsWith('/v1/profiles?'));
    expect(refused).toMatchObject({ status: 401, code: 'RENDER_TOKEN_INVALID' });
  });
});
