import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { html, startFixtureServer, type FixtureServer } from './test-support/fixture-server.js';
import { startService, type TestService } from './test-support/service.js';
import { startTlsServer, type TlsServer } from './test-support/tls-server.js';

// The deployment switches with everything turned on (docs/render.md#configuration):
// ALLOW_ANONYMOUS, ALLOW_PRIVATE_NETWORK, ALLOW_INSECURE_TLS, a short ARTIFACT_TTL_MS.

let svc: TestService;
let site: FixtureServer;
let tls: TlsServer;

beforeAll(async () => {
  site = await startFixtureServer({ '/ok': html('<p>private but allowed</p>') });
  tls = await startTlsServer();
  svc = await startService({
    BROWSER_API_TOKEN: '',
    ALLOW_ANONYMOUS: '1',
    ALLOW_PRIVATE_NETWORK: '1',
    ALLOW_INSECURE_TLS: '1',
    ARTIFACT_TTL_MS: '1000',
  });
});

afterAll(async () => {
  await svc.close();
  await site.close();
  await tls.close();
});

const anonymous = (path: string, body?: unknown) =>
  svc.call(path, {
    auth: false,
    ...(body !== undefined && {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
  });

describe('switches', () => {
  it('ALLOW_ANONYMOUS=1 opens every route without a token', async () => {
    expect((await anonymous('/v1/profiles')).status).toBe(200);
    expect((await anonymous('/metrics')).status).toBe(200);
  });

  it('ALLOW_PRIVATE_NETWORK=1 lets renders reach loopback', async () => {
    const res = await anonymous('/v1/render', { url: `http://127.0.0.1:${site.port}/ok` });
    expect(res.status).toBe(200);
  });

  it('ALLOW_INSECURE_TLS=1 honours insecureTls through the CONNECT tunnel', async () => {
    const strict = await anonymous('/v1/render', { url: `${tls.origin}/` });
    expect(strict.status).toBe(502);
    expect(((await strict.json()) as { error: string }).error).toMatch(
      /^navigation failed: net::ERR_CERT_/,
    );
    const lax = await anonymous('/v1/render', { url: `${tls.origin}/`, insecureTls: true });
    expect(lax.status).toBe(200);
  });

  it('expires artifacts after ARTIFACT_TTL_MS', async () => {
    const res = await anonymous('/v1/render', { html: '<p>short-lived</p>' });
    const body = (await res.json()) as { artifact: { url: string } };
    expect(res.status, JSON.stringify(body)).toBe(200);
    const { artifact } = body;
    expect((await anonymous(artifact.url)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1100));
    const gone = await anonymous(artifact.url);
    expect(gone.status).toBe(404);
    expect(await gone.json()).toEqual({ error: 'no such artifact (it may have expired)' });
  });
});
