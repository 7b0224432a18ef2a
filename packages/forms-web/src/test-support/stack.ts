// The real forms server (@havn/forms) on 127.0.0.1 port 0 with its SQLite file in a temp dir and
// WEB_DIR pointing at this package's build, seeded through its own admin API: org "acme" with a
// minted organisation token, and form "contact" allowing the test site's origin.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildServer, configWith, loadOrCreateVapidKeys, openStore } from '@havn/forms';
import type { SubmissionAnswer } from '@havn/forms/wire';
import { createLogger } from '@havn/shared';
import { WEB_DIR } from './build.js';
import { CONTACT_DEFINITION } from './definitions.js';

/** The server's admin token (FORM_ADMIN_TOKEN): the tests use it only for what a service does. */
export const ADMIN_TOKEN = 'forms-web-test-admin-token';

type App = Awaited<ReturnType<typeof buildServer>>;

/** A full submission record, as the server answers it. */
export type SubmissionRecord = SubmissionAnswer;

export interface Stack {
  /** The forms server's base URL (http://127.0.0.1:<port>). */
  url: string;
  org: string;
  /** An organisation token of "acme", minted through the API. */
  token: string;
  /** The public definition URL of the contact form. */
  definitionUrl: string;
  /** The organisation-token client of the admin API. */
  api<T>(method: string, path: string, body?: unknown): Promise<T>;
  putContactForm(allowedOrigins: string[], definition?: object, webhooks?: object[]): Promise<void>;
  /** Posts answers to the contact form's public endpoint as a browser on `origin` would. */
  submit(answers: Record<string, unknown>, origin: string): Promise<string>;
  /** Full records of the org's submissions (spam included), newest first. */
  submissions(): Promise<SubmissionRecord[]>;
  /** Stops the server: to a browser it is down. */
  stop(): Promise<void>;
  /** Starts it again on the same port with the same data. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

async function listen(
  dir: string,
  port: number,
  allowPrivateWebhooks = true, // the test's webhook receiver is on loopback
): Promise<{ app: App; url: string }> {
  const config = configWith({
    userDataDir: dir,
    adminToken: ADMIN_TOKEN,
    webDir: WEB_DIR,
    allowPrivateWebhooks,
    ingestRateLimitPerMinute: 0,
  });
  const app = await buildServer({
    config,
    log: createLogger({ name: 'forms-web-test', level: 'silent' }),
    store: await openStore(dir),
    vapid: loadOrCreateVapidKeys(dir),
    // No automatic webhook retry during a test: a redelivery is then the only second attempt.
    retrySchedule: [3_600_000],
  });
  const url = await app.listen({ host: '127.0.0.1', port });
  return { app, url };
}

async function call<T>(base: string, token: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

/** A forms server with nothing in it yet (no organisation): what a first start looks like. */
export async function startEmptyServer(
  options: { allowPrivateWebhooks?: boolean } = {},
): Promise<{ app: App; url: string; close(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'havn-forms-web-'));
  const { app, url } = await listen(dir, 0, options.allowPrivateWebhooks);
  return {
    app,
    url,
    async close() {
      await app.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function startStack(allowedOrigins: string[]): Promise<Stack> {
  const dir = mkdtempSync(join(tmpdir(), 'havn-forms-web-'));
  let running: App | null;
  const first = await listen(dir, 0);
  running = first.app;
  const url = first.url;
  const port = Number(new URL(url).port);
  await call(url, ADMIN_TOKEN, 'POST', '/api/orgs', { slug: 'acme', name: 'Acme Ltd' });
  const { token } = await call<{ token: string }>(
    url,
    ADMIN_TOKEN,
    'POST',
    '/api/orgs/acme/tokens',
    {
      label: 'forms-web tests',
    },
  );
  const api = <T>(method: string, path: string, body?: unknown) =>
    call<T>(url, token, method, path, body);
  const putContactForm = async (
    origins: string[],
    definition: object = CONTACT_DEFINITION,
    webhooks: object[] = [],
  ) => {
    await api('PUT', '/api/orgs/acme/forms/contact', {
      name: 'Contact',
      description: 'The contact form of acme.example',
      // The hosted page /f/<org>/<form> posts from the server's own origin.
      allowedOrigins: [...origins, url],
      webhooks,
      definition,
    });
  };
  await putContactForm(allowedOrigins);
  const stop = async () => {
    const app = running;
    running = null;
    await app?.close();
  };
  return {
    url,
    org: 'acme',
    token,
    definitionUrl: `${url}/api/orgs/acme/forms/contact/definition`,
    api,
    putContactForm,
    async submit(answers, origin) {
      // The server refuses a submission without the contact form's required answers
      // (docs/definition-format.md): those a test leaves out are filled in after its own.
      const required = { email: 'someone@example.com', topic: 'sales', terms: true };
      const body = { ...answers, ...required, ...answers };
      const res = await fetch(`${url}/api/orgs/acme/forms/contact/submissions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin },
        body: JSON.stringify({ ...body, submitFields: { source: 'test', _gotcha: '' } }),
      });
      if (res.status !== 200) throw new Error(`submit: ${res.status} ${await res.text()}`);
      return ((await res.json()) as { id: string }).id;
    },
    async submissions() {
      const { submissions } = await api<{ submissions: { id: string; form: string }[] }>(
        'GET',
        '/api/orgs/acme/submissions?includeSpam=true&limit=500',
      );
      return Promise.all(
        submissions.map((s) =>
          api<SubmissionRecord>('GET', `/api/orgs/acme/forms/${s.form}/submissions/${s.id}`),
        ),
      );
    },
    stop,
    async restart() {
      running = (await listen(dir, port)).app;
    },
    async close() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A webhook receiver on loopback that answers 500 and counts the deliveries it was offered. */
export async function startFailingWebhook(): Promise<{
  url: string;
  hits: () => number;
  close: () => Promise<void>;
}> {
  let hits = 0;
  const server: Server = createServer((req, res) => {
    hits++;
    req.resume();
    res.writeHead(500).end('receiver is broken');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    hits: () => hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}
