import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTlsServer, type TlsServer } from '../test-support/tls-server.js';
import { startSessionTestApp, type SessionTestApp } from './test-support/session-test-app.js';

// `insecureTls` (docs/sessions.md#open-a-session): a session may accept a self-signed certificate
// only when the service runs with ALLOW_INSECURE_TLS=1 and the session asks for it.

let server: TlsServer;
let url: string;
let lax: SessionTestApp;

beforeAll(async () => {
  server = await startTlsServer('<title>self-signed</title>');
  url = `${server.origin}/`;
  lax = await startSessionTestApp({ allowInsecureTls: true });
});
afterAll(async () => {
  await lax.close();
  await server.close();
});

async function create(t: SessionTestApp, body: unknown) {
  const response = await fetch(`${t.baseUrl}/v1/sessions`, {
    method: 'POST',
    headers: { ...t.auth, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('insecureTls', () => {
  it('opens a self-signed page only when the service allows it and the session asks', async () => {
    const refused = await create(lax, { url });
    expect(refused.status).toBe(502);
    expect(refused.body['error']).toMatch(/^navigation failed: net::ERR_CERT_[A-Z_]+$/);
    const accepted = await create(lax, { url, insecureTls: true });
    expect(accepted.status).toBe(201);
    await fetch(`${lax.baseUrl}/v1/sessions/${accepted.body['id'] as string}`, {
      method: 'DELETE',
      headers: lax.auth,
    });
    expect(lax.manager.liveCount()).toBe(0);
  });

  it('ignores insecureTls when ALLOW_INSECURE_TLS is off', async () => {
    const strict = await startSessionTestApp();
    try {
      const refused = await create(strict, { url, insecureTls: true });
      expect(refused.status).toBe(502);
      expect(refused.body['error']).toMatch(/ERR_CERT/);
    } finally {
      await strict.close();
    }
  });
});
