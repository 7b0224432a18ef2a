// Two render instances on one PostgreSQL database and a shared ARTIFACT_DIR, behind nginx from
// Debian balancing round robin with no stickiness, on this machine
// (docs/render.md#several-instances). After `npm run setup`:
//
//   node --import tsx scripts/render-two-instances.ts
//
// DATABASE_URL=postgres://… uses that database; without it a throwaway PostgreSQL cluster is
// started in a temp dir (Debian's postgresql, as the tests use it) and removed on exit.
// ARTIFACT_STORE=s3://… (with the AWS_* variables) keeps the bytes in S3 instead. nginx listens
// on RENDER_PORT (3000), the instances on free loopback ports. Ctrl-C stops everything (the
// instances with SIGTERM, so they drain).
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { startBalancer } from '../packages/render/src/test-support/nginx.js';
import {
  startRenderInstance,
  type RenderInstance,
} from '../packages/render/src/test-support/render-instances.js';
import { startPostgresCluster, type PostgresCluster } from '../test-support/postgres-cluster.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const port = Number(process.env.RENDER_PORT ?? 3000);

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
  await admin.query('create database havn_render');
  await admin.end();
  return { url: cluster.urlOf('havn_render'), cluster };
}

const token = process.env.BROWSER_API_TOKEN ?? devToken();
const db = await database();
const passOn = (names: string[]) =>
  Object.fromEntries(names.flatMap((n) => (process.env[n] ? [[n, process.env[n]]] : [])));
const shared = {
  BROWSER_API_TOKEN: token,
  DATABASE_URL: db.url,
  ARTIFACT_DIR: join(root, 'data', 'render-cluster-artifacts'),
  // The balancer's address goes into every cdpUrl and liveUrl.
  PUBLIC_BASE_URL: process.env.PUBLIC_BASE_URL ?? `http://127.0.0.1:${String(port)}`,
  ...passOn([
    'ARTIFACT_STORE',
    'AWS_ENDPOINT_URL',
    'AWS_REGION',
    'AWS_ACCESS_KEY_ID',
    'AWS_SECRET_ACCESS_KEY',
    'MAX_SESSIONS',
    'ALLOWED_HOSTS',
  ]),
};
// One machine: the two instances' browsers run under uids of their own.
const instances: RenderInstance[] = await Promise.all([
  startRenderInstance('render-1', { ...shared, BROWSER_UIDS: '64000-64099' }, { echo: true }),
  startRenderInstance('render-2', { ...shared, BROWSER_UIDS: '64100-64199' }, { echo: true }),
]);
const balancer = await startBalancer(
  instances.map((i) => `127.0.0.1:${String(i.port)}`),
  port,
);
console.log(
  `havn: render on ${balancer.base} (nginx, round robin over ports ${instances.map((i) => i.port).join(' and ')})`,
);
console.log(`havn: database ${db.url}${db.cluster ? ' (throwaway, removed on exit)' : ''}`);
console.log(`havn: token ${token}`);

let stopping = false;
const stop = (): void => {
  if (stopping) return;
  stopping = true;
  void Promise.all([balancer.close(), ...instances.map((i) => i.stop('SIGTERM'))]).then(() => {
    db.cluster?.stop();
    process.exit(0);
  });
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
for (const instance of instances) void instance.exited.then(stop);
