// The real forms server (@havn/forms) on 127.0.0.1 port 0, SQLite in a temp dir, seeded through
// its own admin API: organisation `acme` with a minted organisation token (what `havn forms` is
// given), and form `contact`. The CLI tests run the built binary against it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildServer, configWith, loadOrCreateVapidKeys, openStore } from '@havn/forms';
import { createLogger } from '@havn/shared';

export const FORMS_ADMIN_TOKEN = 'cli-test-forms-admin-token';

export const CONTACT_DEFINITION = {
  intro: { title: 'Contact us' },
  questions: [
    { logicalName: 'name', type: 'text', label: 'Your name' },
    { logicalName: 'message', type: 'textarea', label: 'Message' },
  ],
};

/** The origin the contact form allows: the tests post submissions as a page there would. */
export const SITE_ORIGIN = 'http://site.test';

export interface FormsService {
  readonly url: string;
  /** An organisation token of `acme`. */
  readonly token: string;
  /** The admin API with the organisation token; throws on a non-2xx answer. */
  api<T>(method: string, path: string, body?: unknown): Promise<T>;
  /** Posts answers to the contact form's public endpoint; returns the submission id. */
  submit(answers: Record<string, unknown>): Promise<string>;
  close(): Promise<void>;
}

export async function startFormsService(): Promise<FormsService> {
  const dir = mkdtempSync(join(tmpdir(), 'havn-cli-forms-'));
  const app = await buildServer({
    config: configWith({
      userDataDir: dir,
      adminToken: FORMS_ADMIN_TOKEN,
      webDir: join(dir, 'no-web-dir'),
      // The tests' webhook receiver listens on loopback.
      allowPrivateWebhooks: true,
      ingestRateLimitPerMinute: 0,
    }),
    log: createLogger({ name: 'cli-test-forms', level: 'silent' }),
    store: await openStore(dir),
    vapid: loadOrCreateVapidKeys(dir),
  });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  const call = async <T>(token: string, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${String(res.status)} ${text}`);
    return (text ? JSON.parse(text) : undefined) as T;
  };
  await call(FORMS_ADMIN_TOKEN, 'POST', '/api/orgs', { slug: 'acme', name: 'Acme' });
  const { token } = await call<{ token: string }>(
    FORMS_ADMIN_TOKEN,
    'POST',
    '/api/orgs/acme/tokens',
    { label: 'havn cli tests' },
  );
  await call(token, 'PUT', '/api/orgs/acme/forms/contact', {
    name: 'Contact',
    allowedOrigins: [SITE_ORIGIN],
    definition: CONTACT_DEFINITION,
  });
  return {
    url,
    token,
    api: (method, path, body) => call(token, method, path, body),
    submit: async (answers) => {
      const res = await fetch(`${url}/api/orgs/acme/forms/contact/submissions`, {
        method: 'POST',
        headers: { origin: SITE_ORIGIN, 'content-type': 'application/json' },
        body: JSON.stringify(answers),
      });
      const body = (await res.json()) as { id?: string; error?: string };
      if (!res.ok || body.id === undefined) throw new Error(`submit: ${JSON.stringify(body)}`);
      return body.id;
    },
    close: async () => {
      await app.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
