import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSessionTestApp, type SessionTestApp } from './test-support/session-test-app.js';

// `insecureTls` (spec 1 §4.5): a session may accept a self-signed certificate only when the
// service runs with ALLOW_INSECURE_TLS=1 and the session asks for it.

const run = promisify(execFile);
let dir: string;
let server: Server;
let url: string;
let lax: SessionTestApp;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'havn-tls-'));
  const key = join(dir, 'key.pem');
  const cert = join(dir, 'cert.pem');
  await run('/usr/bin/openssl', [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '1',
    '-subj',
    '/CN=localhost',
    '-addext',
    'subjectAltName=DNS:localhost',
    '-keyout',
    key,
    '-out',
    cert,
  ]);
  server = createServer({ key: await readFile(key), cert: await readFile(cert) }, (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' }).end('<title>self-signed</title>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `https://localhost:${(server.address() as AddressInfo).port}/`;
  lax = await startSessionTestApp({ allowInsecureTls: true });
});
afterAll(async () => {
  await lax.close();
  server.closeAllConnections();
  await new Promise<void>((resolve) => {
    server.close(() => {
      resolve();
    });
  });
  await rm(dir, { recursive: true, force: true });
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
