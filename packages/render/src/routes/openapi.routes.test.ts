import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { bodyProblem } from '../../../../test-support/openapi-answers.js';
import { sessionsExtension } from '../sessions/sessions-extension.js';
import { html, startFixtureServer, type FixtureServer } from '../test-support/fixture-server.js';
import { startService, TEST_TOKEN, type TestService } from '../test-support/service.js';

// docs/render.md#get-v1openapijson-and-get-metrics: GET /v1/openapi.json is generated from the route schemas. It must be a
// valid OpenAPI document by a validator nobody here wrote, and every operation in it is called for
// real (the service as main.ts composes it, browser sessions included): each answer, its status
// and its body, must be one the document describes. The operations come from the document itself,
// so a route added later is called too; only the requests some routes need are written down here.

interface Operation {
  security?: Record<string, unknown>[];
  requestBody?: unknown;
  parameters?: { in: string; name: string }[];
  responses?: Record<string, { content?: Record<string, { schema?: object }> }>;
}
interface Document {
  openapi: string;
  security?: Record<string, unknown>[];
  paths: Record<string, Record<string, Operation>>;
  components?: object;
}

/** What one call sends: path parameters, body, headers. */
interface Call {
  params?: Record<string, string>;
  body?: unknown;
  headers?: Record<string, string>;
}

interface Answer {
  status: number;
  type: string;
  text: string;
}

describe('the OpenAPI document', () => {
  let svc: TestService;
  let site: FixtureServer;
  let doc: Document;
  /** The session the session routes act on, its own token, and a stored artifact. */
  const ids = { session: '', sessionToken: '', artifact: '', pdf: '' };

  beforeAll(async () => {
    site = await startFixtureServer({
      '/page': html(
        '<h1>Quarterly report</h1><p>Sales rose. See the <a href="/more">details</a>.</p>',
        '<title>Report</title>',
      ),
    });
    svc = await startService(
      // A small MAX_HTML_BYTES, so a body over the limit is a small one to send.
      {
        ALLOWED_HOSTS: 'localhost',
        MAX_SESSIONS: '2',
        MAX_HTML_BYTES: '10000',
        STATE_KEY: Buffer.alloc(32, 1).toString('base64'),
      },
      { extensions: [sessionsExtension()] },
    );
    const rendered = await svc.post('/v1/render', { html: '<p>stored</p>' });
    expect(rendered.status).toBe(200);
    ids.artifact = (rendered.body.artifact as { id: string }).id;
    const res = await svc.call('/v1/openapi.json');
    expect(res.status).toBe(200);
    doc = (await res.json()) as Document;
  }, 60_000);

  afterAll(async () => {
    await svc.close();
    await site.close();
  });

  /** The requests routes need, keyed `METHOD path` as the document spells it. */
  function fixtures(): Record<string, Call> {
    const page = `${site.origin}/page`;
    // Discovery at the service root takes the session's own token only.
    const own = { headers: { authorization: `Bearer ${ids.sessionToken}` } };
    return {
      'POST /v1/render': { body: { url: page } },
      'POST /v1/render/batch': { body: { url: page, profiles: ['desktop', 'mobile'] } },
      'POST /v1/content': { body: { url: page } },
      'POST /v1/markdown': { body: { url: page, return: 'url' } },
      'POST /v1/links': { body: { url: page } },
      'POST /v1/scrape': { body: { url: page, elements: [{ selector: 'a' }] } },
      'POST /v1/snapshot': { body: { url: page, return: 'base64' } },
      'POST /v1/pdf/merge': {
        body: { inputs: [{ url: page }, { html: '<p>Appendix</p>' }, { artifact: ids.pdf }] },
      },
      'POST /v1/sessions': { body: { url: page } },
      'POST /v1/sessions/{id}/screenshot': { body: { format: 'jpeg' } },
      'POST /v1/sessions/{id}/touch': { body: { ttlMs: 60_000 } },
      // Saved, then deleted (DELETEs run last).
      'POST /v1/sessions/{id}/state': { body: { name: 'openapi-state' } },
      'DELETE /v1/states/{name}': { params: { name: 'openapi-state' } },
      'GET /json/version': own,
      'GET /json/list': own,
      'GET /json': own,
      'GET /json/protocol': own,
    };
  }

  /** Every operation of the document: the session is opened first, closed last. */
  function operations(): { method: string; path: string; op: Operation }[] {
    const all = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
    );
    const rank = (o: { method: string; path: string }) =>
      o.method === 'POST' && o.path === '/v1/sessions' ? 0 : o.method === 'DELETE' ? 2 : 1;
    return all.sort((a, b) => rank(a) - rank(b));
  }

  /** Sends `call` to the operation, with the service token unless `token` is null. */
  async function send(
    method: string,
    path: string,
    call: Call,
    token: string | null = TEST_TOKEN,
  ): Promise<Answer> {
    const params: Record<string, string> = {
      id: path.startsWith('/v1/artifacts/') ? ids.artifact : ids.session,
      ...call.params,
    };
    const filled = path.replace(/\{(\w+)\}/g, (_m, name: string) =>
      encodeURIComponent(params[name] ?? name),
    );
    const headers: Record<string, string> = {};
    if (token !== null) headers.authorization = `Bearer ${token}`;
    Object.assign(headers, token === null ? {} : call.headers);
    if (call.body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${svc.base}${filled}`, {
      method,
      headers,
      ...(call.body !== undefined ? { body: JSON.stringify(call.body) } : {}),
    });
    return {
      status: res.status,
      type: (res.headers.get('content-type') ?? '').split(';')[0]!.trim(),
      text: await res.text(),
    };
  }

  /** Why the answer is not one the operation documents; undefined when it is. */
  function undocumented(op: Operation, answer: Answer): string | undefined {
    const response = op.responses?.[String(answer.status)];
    if (!response) return `answered ${answer.status}, which the document does not list`;
    return bodyProblem(response, answer, doc.components);
  }

  const secured = (op: Operation) => (op.security ?? doc.security ?? []).length > 0;

  test('is a valid OpenAPI document', async () => {
    const validator = new Validator();
    const result = await validator.validate(doc as unknown as Record<string, unknown>);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  test('lists every route with a schema for every answer', () => {
    const problems: string[] = [];
    for (const { method, path, op } of operations()) {
      const responses = Object.entries(op.responses ?? {});
      if (!responses.some(([status]) => /^2/.test(status))) {
        problems.push(`${method} ${path}: no success answer documented`);
      }
      for (const [status, response] of responses) {
        const schemas = Object.values(response.content ?? {}).filter((m) => m.schema);
        if (schemas.length === 0) problems.push(`${method} ${path}: ${status} has no schema`);
      }
      if (secured(op) && !op.responses?.['401']) problems.push(`${method} ${path}: no 401`);
    }
    expect(problems).toEqual([]);
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/healthz',
        '/v1/profiles',
        '/v1/render',
        '/v1/render/batch',
        '/v1/content',
        '/v1/markdown',
        '/v1/links',
        '/v1/scrape',
        '/v1/snapshot',
        '/v1/pdf/merge',
        '/v1/artifacts',
        '/v1/artifacts/{id}',
        '/v1/sessions',
        '/v1/sessions/{id}',
      ]),
    );
    // One spelling of each route: a trailing slash the server also takes is not a second route.
    expect(Object.keys(doc.paths).filter((p) => p.endsWith('/'))).toEqual([]);
  });

  test('every route answers its request as the document describes', async () => {
    const pdf = await svc.post('/v1/render', { html: '<p>Stored PDF</p>', format: 'pdf' });
    expect(pdf.status).toBe(200);
    ids.pdf = (pdf.body.artifact as { id: string }).id;
    const problems: string[] = [];
    for (const { method, path, op } of operations()) {
      const answer = await send(method, path, fixtures()[`${method} ${path}`] ?? {});
      if (method === 'POST' && path === '/v1/sessions' && answer.status === 201) {
        const opened = JSON.parse(answer.text) as { id: string; cdpUrl: string };
        ids.session = opened.id;
        ids.sessionToken = new URL(opened.cdpUrl).searchParams.get('token') ?? '';
      }
      const why =
        answer.status >= 400
          ? `answered ${answer.status} ${answer.text} (a fixture for this route is missing or wrong)`
          : undocumented(op, answer);
      if (why) problems.push(`${method} ${path}: ${why}`);
    }
    expect(problems).toEqual([]);
  }, 120_000);

  test('every route that takes a token refuses a missing one with a documented 401', async () => {
    const problems: string[] = [];
    const guarded = operations().filter(({ op }) => secured(op));
    expect(guarded.length).toBeGreaterThan(15);
    for (const { method, path, op } of guarded) {
      const answer = await send(method, path, fixtures()[`${method} ${path}`] ?? {}, null);
      const why =
        answer.status === 401 ? undocumented(op, answer) : `answered ${answer.status}, not 401`;
      if (why) problems.push(`${method} ${path}: ${why}`);
    }
    expect(problems).toEqual([]);
  });

  test('every body that is not an object is refused with a documented 400', async () => {
    const problems: string[] = [];
    const withBody = operations().filter(({ op }) => op.requestBody);
    expect(withBody.length).toBeGreaterThanOrEqual(11);
    for (const { method, path, op } of withBody) {
      const answer = await send(method, path, { body: ['not', 'an', 'object'] });
      const why =
        answer.status === 400 ? undocumented(op, answer) : `answered ${answer.status}, not 400`;
      if (why) problems.push(`${method} ${path}: ${why}`);
    }
    expect(problems).toEqual([]);
  });

  test('every body over the size limit is refused with a documented 413', async () => {
    const problems: string[] = [];
    // The limit is twice MAX_HTML_BYTES plus 1 MiB (docs/render.md#statuses).
    const big = { html: 'x'.repeat(1024 * 1024 + 30_000) };
    for (const { method, path, op } of operations().filter(({ op }) => op.requestBody)) {
      const answer = await send(method, path, { body: big });
      const why =
        answer.status === 413 ? undocumented(op, answer) : `answered ${answer.status}, not 413`;
      if (why) problems.push(`${method} ${path}: ${why}`);
    }
    expect(problems).toEqual([]);
  });

  test('every route of one resource answers a documented 404 for an unknown id', async () => {
    const problems: string[] = [];
    const byId = operations().filter(({ path }) => path.includes('{id}'));
    expect(byId.length).toBeGreaterThanOrEqual(8);
    for (const { method, path, op } of byId) {
      const call = fixtures()[`${method} ${path}`] ?? {};
      const answer = await send(method, path, { ...call, params: { id: 'no-such-id' } });
      const why =
        answer.status === 404 ? undocumented(op, answer) : `answered ${answer.status}, not 404`;
      if (why) problems.push(`${method} ${path}: ${why}`);
    }
    expect(problems).toEqual([]);
  });
});
