import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '@havn/shared';
import { configWith, type FormsConfig, type UploadConfig } from '../config.js';
import type { App } from '../routes/app.js';
import { buildServer, type ServerDeps } from '../server.js';
import { vapidKeysOf } from '../services/vapid-keys.js';
import { submissionBuilder } from '../services/submission-builder.js';
import { openStore, type Store, type StoreLocation } from '../store/store.js';
import { createTestDatabase, dropTestDatabase } from '../../../../test-support/test-database.js';

export const adminToken = 'test-admin-token-0123456789';

export interface RunningForms {
  app: App;
  url: string;
  dir: string;
  /** The data directory and, on PostgreSQL, the database: open it again to look inside. */
  location: StoreLocation;
  store: Store;
  /** Closes the server (keeps the data directory). */
  stop(): Promise<void>;
  /** Closes the server and removes the data directory. */
  close(): Promise<void>;
}

// The database of each data directory a test made, so a server started again on the same
// directory (a restart) finds the same data on PostgreSQL too.
const databases = new Map<string, string | undefined>();

/**
 * A real forms server on 127.0.0.1, port 0, with its data directory in a temp dir and its store
 * the one under test (storeUnderTest): SQLite in that directory, or a new PostgreSQL database.
 */
export async function startForms(
  options: {
    config?: Partial<FormsConfig>;
    dir?: string;
    /** Share this PostgreSQL database (another instance's `location.databaseUrl`). */
    databaseUrl?: string | undefined;
    deps?: Partial<
      Pick<
        ServerDeps,
        | 'retrySchedule'
        | 'deliveryTimeoutMs'
        | 'deliveryLeaseMs'
        | 'now'
        | 'retentionSweepMs'
        | 'proofOfWork'
      >
    >;
    /** Upload settings over the defaults (files in `<dir>/uploads`). */
    uploads?: Partial<UploadConfig>;
    /** Where the server logs (JSON lines at `info` and up); silent when not given. */
    logTo?: NodeJS.WritableStream;
  } = {},
): Promise<RunningForms> {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'havn-forms-'));
  const shared = options.databaseUrl !== undefined;
  if (!shared && !databases.has(dir)) databases.set(dir, await createTestDatabase());
  const location: StoreLocation = {
    userDataDir: dir,
    databaseUrl: shared ? options.databaseUrl : databases.get(dir),
  };
  const config = configWith({
    userDataDir: dir,
    databaseUrl: location.databaseUrl,
    adminToken,
    webDir: join(dir, 'no-web-dir'),
    allowPrivateWebhooks: true,
    ...options.config,
  });
  const configured = options.uploads
    ? { ...config, uploads: { ...config.uploads, ...options.uploads } }
    : config;
  const log = options.logTo
    ? createLogger({ name: 'forms-test', level: 'info', destination: options.logTo })
    : createLogger({ name: 'forms-test', level: 'silent' });
  const store = await openStore(location, submissionBuilder);
  const app = await buildServer({
    config: configured,
    log,
    store,
    vapid: await vapidKeysOf(store, dir),
    ...options.deps,
  });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await app.close();
  };
  return {
    app,
    url,
    dir,
    location,
    store,
    stop,
    close: async () => {
      await stop();
      if (!options.dir) {
        rmSync(dir, { recursive: true, force: true });
        databases.delete(dir);
        if (!shared) await dropTestDatabase(location.databaseUrl);
      }
    },
  };
}

/** fetch against the server with JSON in and out. */
/** A loosely typed JSON body for assertions; tests narrow it with a type argument where needed. */
export interface Loose {
  [key: string]: Loose | string | number | boolean | null | undefined;
}

export interface Answer<T> {
  status: number;
  body: T;
  headers: Headers;
  text: string;
}

export function client(base: string, token: string | null = adminToken) {
  return async <T = Loose>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Answer<T>> => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, body: parsed as T, headers: res.headers, text };
  };
}

// Nothing is required: the server enforces `required` (docs/definition-format.md), and the tests
// post whatever answers their case needs.
export const sampleDefinition = {
  intro: { title: 'Contact us', text: 'We answer within a day.' },
  questions: [
    { logicalName: 'name', type: 'text', label: 'Your name' },
    { logicalName: 'email', type: 'email', label: 'Email' },
    { logicalName: 'message', type: 'textarea', label: 'Message' },
    {
      logicalName: 'topics',
      type: 'choice',
      multiple: true,
      label: 'Topics',
      options: [
        { value: 'a', label: 'A' },
        { value: 'b', label: 'B' },
      ],
    },
  ],
  submitFields: { source: 'website' },
  thanks: 'Thank you.',
};

/** Creates org `acme` and form `contact` allowing `origin`, with optional webhooks. */
export async function seedForm(
  base: string,
  options: { org?: string; form?: string; origin?: string; webhooks?: unknown[] } = {},
): Promise<void> {
  const api = client(base);
  const org = options.org ?? 'acme';
  const created = await api('POST', '/api/orgs', { slug: org, name: 'Acme' });
  if (created.status !== 201 && created.status !== 409) throw new Error(JSON.stringify(created));
  const put = await api('PUT', `/api/orgs/${org}/forms/${options.form ?? 'contact'}`, {
    name: 'Contact',
    allowedOrigins: [options.origin ?? 'http://site.test'],
    webhooks: options.webhooks ?? [],
    definition: sampleDefinition,
  });
  if (put.status !== 200) throw new Error(JSON.stringify(put));
}
