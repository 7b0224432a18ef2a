// Two forms servers on one PostgreSQL database behind a round-robin proxy, on this machine
// (docs/forms.md#several-instances). After `npm run setup`:
//
//   node --import tsx scripts/forms-two-instances.ts
//
// DATABASE_URL=postgres://… uses that database; without it a throwaway PostgreSQL cluster is
// started in a temp dir (Debian's postgresql, as the tests use it) and removed on exit. The proxy
// listens on FORMS_PORT (3100; 0 picks a free port), the instances on free loopback ports. Ctrl-C
// stops everything (the instances gracefully, with SIGTERM).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request, createServer } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { startPostgresCluster, type PostgresCluster } from '../test-support/postgres-cluster.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const mainJs = join(root, 'packages/forms/dist/main.js');
const host = process.env.HOST ?? '127.0.0.1';
const port = Number(process.env.FORMS_PORT ?? 3100);

function devToken(): string {
  // The same development token `npm start` uses (docs/configuration.md).
  const file = join(root, 'data', 'dev-token');
  if (!existsSync(file)) {
    mkdirSync(join(root, 'data'), { recursive: true });
    writeFileSync(file, randomBytes(24).toString('base64url'), { mode: 0o600 });
  }
  return readFileSync(file, 'utf8').trim();
}

async function database(): Promise<{ url: string; cluster?: PostgresCluster }> {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL };
  const cluster = await startPostgresCluster();
  const admin = new pg.Client({ connectionString: cluster.url });
  await admin.connect();
  await admin.query('create database havn_forms');
  await admin.end();
  return { url: cluster.urlOf('havn_forms'), cluster };
}

if (!existsSync(mainJs)) {
  console.error('havn: build first (npm run setup)');
  process.exit(1);
}
const token = process.env.FORM_ADMIN_TOKEN ?? devToken();
const db = await database();
const instances: ChildProcess[] = [1, 2].map((i) =>
  spawn(process.execPath, [mainJs], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: '0',
      DATABASE_URL: db.url,
      USER_DATA_DIR: join(root, 'data', `forms-${String(i)}`),
      FORM_ADMIN_TOKEN: token,
      // The proxy below is the only client the instances see: trust its X-Forwarded-For.
      TRUST_PROXY: '127.0.0.1',
      ...(process.env.PUBLIC_BASE_URL ? { PUBLIC_BASE_URL: process.env.PUBLIC_BASE_URL } : {}),
    },
  }),
);
/** Each instance's port, from the line it logs once listening (its log goes on to stdout). */
const ports = await Promise.all(
  instances.map(
    (child) =>
      new Promise<number>((resolve, reject) => {
        let seen = '';
        child.stdout?.on('data', (chunk: Buffer) => {
          process.stdout.write(chunk);
          seen += chunk.toString();
          const m = /"url":"http:\/\/[^"]+:(\d+)"/.exec(seen);
          if (m) resolve(Number(m[1]));
        });
        child.once('exit', (code) => {
          reject(new Error(`a forms instance exited (${String(code)})`));
        });
      }),
  ),
);

// Any HTTP load balancer will do (nginx, HAProxy, a cloud one); no stickiness is needed. This one
// sends each request to the next instance in turn.
let next = 0;
const proxy = createServer((req, res) => {
  const target = ports[next++ % ports.length];
  const forwarded = [req.headers['x-forwarded-for'], req.socket.remoteAddress]
    .filter(Boolean)
    .join(', ');
  const upstream = request(
    {
      host: '127.0.0.1',
      port: target,
      method: req.method,
      path: req.url,
      headers: { ...req.headers, 'x-forwarded-for': forwarded },
    },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  upstream.on('error', () => {
    if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
    res.end('{"error":"instance unavailable"}');
  });
  req.pipe(upstream);
});
proxy.listen(port, host, () => {
  const address = proxy.address();
  const actual = typeof address === 'object' && address ? address.port : port;
  console.log(
    `havn: forms on http://${host}:${String(actual)} (round robin over ports ${ports.join(' and ')})`,
  );
  console.log(`havn: database ${db.url}${db.cluster ? ' (throwaway, removed on exit)' : ''}`);
  console.log(`havn: admin token ${token}`);
});

let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  proxy.close();
  const exits = instances.map(
    (child) =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) resolve();
        else
          child.once('exit', () => {
            resolve();
          });
        child.kill('SIGTERM');
      }),
  );
  void Promise.all(exits).then(() => {
    db.cluster?.stop();
    process.exit(0);
  });
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
for (const child of instances) child.once('exit', stop);
