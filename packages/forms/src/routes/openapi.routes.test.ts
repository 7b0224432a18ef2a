import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { bodyProblem } from '../../../../test-support/openapi-answers.js';
import { startReceiver, waitFor, type Receiver } from '../test-support/receivers.js';
import {
  adminToken,
  client,
  sampleDefinition,
  seedForm,
  startForms,
  type RunningForms,
} from '../test-support/forms-server.js';

// docs/forms.md#push-service-web-app: /api/openapi.json is generated from the route schemas. Every
// operation in it is called for real, and each answer (status and body) must be one the document
// describes. The operations come from the document itself, so a route added later is called too;
// only the requests some routes need (a body, a particular id) are written down here.

const site = 'http://site.test';

interface Operation {
  security?: unknown[];
  requestBody?: unknown;
  responses?: Record<string, { content?: Record<string, { schema?: object }> }>;
}
interface Document {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components?: object;
}

/** What one call sends: path parameters, query, body, headers. */
interface Call {
  params?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
  headers?: Record<string, string>;
}

describe('the OpenAPI document', () => {
  let s: RunningForms;
  let receiver: Receiver;
  let doc: Document;
  const ids = { submission: '', erasable: '', delivery: '', token: '', withFile: '', file: '' };
  let fixtures: Record<string, Call> = {};

  beforeAll(async () => {
    receiver = await startReceiver();
    s = await startForms({ config: { ingestRateLimitPerMinute: 0 } });
    const admin = client(s.url);
    await seedForm(s.url, { webhooks: [{ url: receiver.url, secret: 'whsec_c2VjcmV0' }] });
    await seedForm(s.url, { form: 'doomed' });
    await seedForm(s.url, { form: 'guarded' });
    const submit = async () => {
      const r = await client(s.url, null)<{ id: string }>(
        'POST',
        '/api/orgs/acme/forms/contact/submissions',
        { name: 'Ada', email: 'ada@example.com' },
        { origin: site },
      );
      expect(r.status).toBe(200);
      return r.body.id;
    };
    ids.submission = await submit();
    ids.erasable = await submit();
    await waitFor(() => receiver.received.length >= 2);
    const record = await admin<{ deliveries: { id: string }[] }>(
      'GET',
      `/api/orgs/acme/forms/contact/submissions/${ids.submission}`,
    );
    ids.delivery = record.body.deliveries[0]!.id;
    ids.token = (
      await admin<{ id: string }>('POST', '/api/orgs/acme/tokens', { label: 'old' })
    ).body.id;
    const setupLink = await admin<{ url: string }>('POST', '/api/setup-links');
    const setupCode = setupLink.body.url.split('/').at(-1);
    // docs/forms.md#file-uploads: a submission with a file, for the download route.
    await admin('PUT', '/api/orgs/acme/forms/files', {
      allowedOrigins: [site],
      definition: {
        intro: { title: 'Files' },
        questions: [{ logicalName: 'doc', type: 'file', label: 'A file' }],
      },
    });
    const upload = new FormData();
    upload.append('doc', new Blob(['plain text']), 'note.txt');
    const posted = await fetch(`${s.url}/api/orgs/acme/forms/files/submissions`, {
      method: 'POST',
      headers: { origin: site, accept: 'application/json' },
      body: upload,
    });
    ids.withFile = ((await posted.json()) as { id: string }).id;
    const withFile = await admin<{ answers: { doc: { id: string }[] } }>(
      'GET',
      `/api/orgs/acme/forms/files/submissions/${ids.withFile}`,
    );
    ids.file = withFile.body.answers.doc[0]!.id;
    const pow = await admin('PATCH', '/api/orgs/acme/forms/guarded', { spamProtection: 'pow' });
    expect(pow.status).toBe(200);

    const form = '/api/orgs/{org}/forms/{form}';
    const p256dh = Buffer.alloc(65, 4).toString('base64url');
    const endpoint = 'https://push.example.test/subscription';
    // Keyed `METHOD path` as the document spells it; every other call uses org acme, form
    // contact, the first submission as {id} and version 1.
    fixtures = {
      'POST /api/orgs': { body: { slug: 'globex', name: 'Globex' } },
      'POST /api/setup': { body: { code: setupCode, slug: 'initech', name: 'Initech' } },
      'PUT /api/orgs/{org}': { body: { name: 'Acme' } },
      'POST /api/orgs/{org}/tokens': { body: { label: 'inbox' } },
      'DELETE /api/orgs/{org}/tokens/{id}': { params: { id: ids.token } },
      [`PUT ${form}`]: {
        body: {
          name: 'Contact',
          allowedOrigins: [site],
          webhooks: [{ url: receiver.url, secret: 'whsec_c2VjcmV0' }],
          definition: sampleDefinition,
        },
      },
      [`PATCH ${form}`]: { body: { description: 'Website contact form' } },
      [`DELETE ${form}`]: { params: { form: 'doomed' } },
      [`PUT ${form}/definition`]: { body: sampleDefinition },
      [`POST ${form}/submissions`]: { body: { name: 'Grace', email: 'grace@example.com' } },
      [`DELETE ${form}/submissions/{id}`]: { params: { id: ids.erasable } },
      [`GET ${form}/submissions/{id}/files/{fileId}`]: {
        params: { form: 'files', id: ids.withFile, fileId: ids.file },
      },
      [`GET ${form}/challenge`]: { params: { form: 'guarded' } },
      [`OPTIONS ${form}/challenge`]: { params: { form: 'guarded' } },
      [`GET ${form}/webhooks/deliveries`]: { query: { url: receiver.url } },
      [`POST ${form}/webhooks/test`]: { body: { url: receiver.url } },
      'POST /api/orgs/{org}/webhooks/check': { body: { url: receiver.url } },
      [`POST ${form}/deliveries/{id}/redeliver`]: { params: { id: ids.delivery } },
      'POST /api/orgs/{org}/push/subscribe': {
        body: { endpoint, expirationTime: null, keys: { p256dh, auth: 'AAAAAAAAAAAAAAAAAAAAAA' } },
      },
      'POST /api/orgs/{org}/push/unsubscribe': { body: { endpoint } },
    };

    const res = await fetch(`${s.url}/api/openapi.json`);
    expect(res.status).toBe(200);
    doc = (await res.json()) as Document;
  });

  afterAll(async () => {
    await s.close();
    await receiver.close();
  });

  /** Every operation of the document, deletions last (they take what others read). */
  function operations(): { method: string; path: string; op: Operation }[] {
    const all = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
    );
    return all.sort((a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'));
  }

  /** Sends `call` to the operation; admin operations with `token` (or none). */
  async function send(
    method: string,
    path: string,
    op: Operation,
    call: Call,
    token: string | null,
  ): Promise<{ status: number; type: string; text: string; location: string | null }> {
    const params: Record<string, string> = {
      org: 'acme',
      form: 'contact',
      id: ids.submission,
      version: '1',
      ...call.params,
    };
    const filled = path.replace(/\{(\w+)\}/g, (_m, name: string) =>
      encodeURIComponent(params[name] ?? name),
    );
    const query = new URLSearchParams(call.query).toString();
    const headers: Record<string, string> = { ...call.headers };
    if (op.security && token) headers.authorization = `Bearer ${token}`;
    if (!op.security) {
      if (!('origin' in headers)) headers.origin = site;
      if (method === 'OPTIONS') headers['access-control-request-method'] = 'POST';
    }
    if (call.body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${s.url}${filled}${query ? `?${query}` : ''}`, {
      method,
      headers,
      redirect: 'manual',
      ...(call.body !== undefined ? { body: JSON.stringify(call.body) } : {}),
    });
    return {
      status: res.status,
      type: (res.headers.get('content-type') ?? '').split(';')[0]!.trim(),
      text: await res.text(),
      location: res.headers.get('location'),
    };
  }

  /** Why the answer is not one the operation documents; undefined when it is. */
  function undocumented(
    op: Operation,
    answer: { status: number; type: string; text: string; location: string | null },
  ): string | undefined {
    const response = op.responses?.[String(answer.status)];
    if (!response) return `answered ${answer.status}, which the document does not list`;
    if (answer.status === 204 || answer.status === 303) {
      if (answer.text !== '') return `answered ${answer.status} with a body: ${answer.text}`;
      if (answer.status === 303 && !answer.location) return 'answered 303 without a Location';
      return undefined;
    }
    return bodyProblem(response, answer, doc.components);
  }

  test('lists the API with a response schema for every answer of every route', () => {
    expect(doc.openapi).toMatch(/^3\./);
    const problems: string[] = [];
    for (const { method, path, op } of operations()) {
      const responses = Object.entries(op.responses ?? {});
      if (!responses.some(([status]) => /^[23]/.test(status))) {
        problems.push(`${method} ${path}: no success answer documented`);
      }
      for (const [status, response] of responses) {
        if (status === '204' || status === '303') continue;
        const schemas = Object.values(response.content ?? {}).filter((m) => m.schema);
        if (schemas.length === 0) problems.push(`${method} ${path}: ${status} has no schema`);
      }
    }
    expect(problems).toEqual([]);
    // The routes of the forms API, at least; routes added later are in it the same way.
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/api/health',
        '/api/version',
        '/api/push/vapid',
        '/api/orgs',
        '/api/orgs/{org}/tokens',
        '/api/orgs/{org}/forms/{form}',
        '/api/orgs/{org}/forms/{form}/definition',
        '/api/orgs/{org}/forms/{form}/submissions',
        '/api/orgs/{org}/forms/{form}/submissions/{id}',
        '/api/orgs/{org}/submissions/export',
      ]),
    );
    expect(Object.keys(doc.paths).filter((p) => !p.startsWith('/api/'))).toEqual([]);
  });

  test('every route answers its request as the document describes', async () => {
    const problems: string[] = [];
    for (const { method, path, op } of operations()) {
      const call = fixtures[`${method} ${path}`] ?? {};
      const answer = await send(method, path, op, call, adminToken);
      const why =
        answer.status >= 400
          ? `answered ${answer.status} ${answer.text} (a fixture for this route is missing or wrong)`
          : undocumented(op, answer);
      if (why) problems.push(`${method} ${path}: ${why}`);
    }
    expect(problems).toEqual([]);
  });

  test('every admin route refuses a missing token with a documented 401', async () => {
    const problems: string[] = [];
    const admin = operations().filter(({ op }) => op.security);
    expect(admin.length).toBeGreaterThan(20);
    for (const { method, path, op } of admin) {
      const answer = await send(method, path, op, fixtures[`${method} ${path}`] ?? {}, null);
      const why =
        answer.status === 401 ? undocumented(op, answer) : `answered ${answer.status}, not 401`;
      if (why) problems.push(`${method} ${path}: ${why}`);
    }
    expect(problems).toEqual([]);
  });

  test("every public route of a form refuses an origin off the form's list with a documented 403", async () => {
    const problems: string[] = [];
    const gated = operations().filter(({ path, op }) => !op.security && path.includes('{form}'));
    expect(gated.length).toBeGreaterThanOrEqual(4);
    for (const { method, path, op } of gated) {
      const call = fixtures[`${method} ${path}`] ?? {};
      const answer = await send(
        method,
        path,
        op,
        {
          ...call,
          headers: { origin: 'http://elsewhere.test' },
        },
        null,
      );
      const why =
        answer.status === 403 ? undocumented(op, answer) : `answered ${answer.status}, not 403`;
      if (why) problems.push(`${method} ${path}: ${why}`);
    }
    expect(problems).toEqual([]);
  });

  test('the export documents both its formats', async () => {
    const exportPath = '/api/orgs/{org}/forms/{form}/submissions/export';
    const op = doc.paths[exportPath]!.get!;
    for (const format of ['csv', 'json']) {
      const answer = await send('GET', exportPath, op, { query: { format } }, adminToken);
      expect(answer.status).toBe(200);
      expect(undocumented(op, answer)).toBeUndefined();
    }
  });
});
