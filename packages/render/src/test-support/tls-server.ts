import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// An HTTPS page on loopback with a self-signed certificate for `localhost` (made by openssl at
// test time), to exercise CONNECT tunnels and `insecureTls`.

export interface TlsServer {
  port: number;
  origin: string;
  close(): Promise<void>;
}

export async function startTlsServer(body = '<p>over tls</p>'): Promise<TlsServer> {
  const dir = await mkdtemp(join(tmpdir(), 'havn-tls-'));
  const key = join(dir, 'key.pem');
  const cert = join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
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
    ],
    { stdio: 'ignore' },
  );
  const server = https.createServer(
    { key: await readFile(key), cert: await readFile(cert) },
    (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(body);
    },
  );
  await rm(dir, { recursive: true, force: true });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    origin: `https://localhost:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}
