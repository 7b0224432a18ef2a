// Device-code sign-in and silent refresh through MSAL, end to end: the built binary against a
// local fake authority over HTTPS (MSAL refuses http authorities) and the fake query API.
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeAppInsights } from '../test-support/fake-app-insights.js';
import { FakeAuthority, selfSignedCertificate } from '../test-support/fake-authority.js';
import { TEST_APP_ID, havn, tempConfigDir } from '../test-support/run-havn.js';

let certDir: string;
let cert: string;
let authority: FakeAuthority;
let api: FakeAppInsights;
let config: { dir: string; cleanup: () => Promise<void> };
const run = (...args: string[]) =>
  havn(args, { configDir: config.dir, env: { NODE_EXTRA_CA_CERTS: cert } });

beforeAll(async () => {
  certDir = await mkdtemp(join(tmpdir(), 'havn-authority-'));
  const certificate = await selfSignedCertificate(certDir);
  cert = certificate.cert;
  authority = await FakeAuthority.start(certificate);
  api = await FakeAppInsights.start();
});
afterAll(async () => {
  await authority.close();
  await api.close();
  await rm(certDir, { recursive: true, force: true });
});
beforeEach(async () => {
  api.reset();
  authority.tokenRequests.length = 0;
  authority.refuseRefresh = false;
  config = await tempConfigDir();
  await run('configure', 'telemetry', '--app-id', TEST_APP_ID, '--api-url', api.url);
});
afterEach(async () => {
  await config.cleanup();
});

async function signIn(): Promise<void> {
  const r = await run(
    'login',
    '--authority',
    `${authority.base}/tenant-x`,
    '--client-id',
    'cli-app',
  );
  expect(r.stderr).toContain('enter the code HAVN-TEST');
  expect(r.code).toBe(0);
}

describe('havn login (device code)', () => {
  it('signs in for {api_url}/.default and stores the tokens with mode 0600', async () => {
    await signIn();
    const grant = authority.tokenRequests.at(-1)!;
    expect(grant.form.grant_type).toBe('device_code');
    expect(grant.form.client_id).toBe('cli-app');
    expect(grant.form.scope?.split(' ')).toContain(`${api.url}/.default`);
    for (const file of ['credentials.json', 'msal-cache.json']) {
      expect((await stat(join(config.dir, file))).mode & 0o777).toBe(0o600);
    }
    const issued = `msal-access-${String(authority.issued)}`;
    api.acceptedToken = issued;
    const q = await run('otel', 'errors', '--format', 'json');
    expect(q.code).toBe(0);
    expect(api.last.headers.authorization).toBe(`Bearer ${issued}`);
    // A fresh token needs no trip to the authority.
    expect(authority.tokenRequests).toHaveLength(1);
  });

  it('refreshes an expired access token silently with the cached refresh token', async () => {
    await signIn();
    const path = join(config.dir, 'credentials.json');
    const stored = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
    await writeFile(path, JSON.stringify({ ...stored, expiresOn: Date.now() - 1000 }));
    api.acceptedToken = `msal-access-${String(authority.issued + 1)}`;
    const q = await run('otel', 'logs', '--format', 'json');
    expect(q.stderr).toBe('');
    expect(q.code).toBe(0);
    expect(authority.tokenRequests.at(-1)?.form.grant_type).toBe('refresh_token');
    expect(api.last.headers.authorization).toBe(`Bearer ${api.acceptedToken}`);
    const renewed = JSON.parse(await readFile(path, 'utf8')) as { expiresOn: number };
    expect(renewed.expiresOn).toBeGreaterThan(Date.now() + 30 * 60_000);
  });

  it('a refresh the authority refuses means not authenticated, exit 1', async () => {
    await signIn();
    const path = join(config.dir, 'credentials.json');
    const stored = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
    await writeFile(path, JSON.stringify({ ...stored, expiresOn: Date.now() - 1000 }));
    authority.refuseRefresh = true;
    const q = await run('otel', 'errors');
    expect(q.code).toBe(1);
    expect(q.stderr.startsWith("Not authenticated. Run 'havn login' to sign in.\n")).toBe(true);
    expect(q.stderr).toContain(
      `The stored sign-in could not be renewed (${new URL(authority.base).host}):`,
    );
    expect(api.requests).toHaveLength(0);
  });

  it('an unreachable identity provider: exit 1 naming the host it tried', async () => {
    const r = await run('login', '--authority', 'https://127.0.0.1:9/tenant-x');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^Sign-in at 127\.0\.0\.1:9 failed: /);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('refuses an http authority with exit 2', async () => {
    const r = await run('login', '--authority', 'http://127.0.0.1:9/tenant');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--authority must be an https URL with a tenant');
  });
});
