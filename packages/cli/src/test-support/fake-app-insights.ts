// A local fake of the two telemetry query APIs speaking their wire format: Application Insights'
// POST /v1/apps/<app>/query and Log Analytics' POST /v1/workspaces/<workspace>/query, both
// answering `{ tables: [ { name: 'PrimaryResult', columns: [{ name, type }], rows } ] }` with
// string-typed cells, and `{ error: { code, message, innererror } }` errors. It checks the bearer
// token, refuses a query that names a table or column the endpoint's backend does not have
// (telemetry-schema.ts) as the real API does, and records every request for the tests to inspect.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { schemaError } from './telemetry-schema.js';

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: { query?: unknown; timespan?: unknown } & Record<string, unknown>;
}

export interface FakeReply {
  readonly status?: number;
  readonly headers?: Record<string, string>;
  readonly body: unknown;
}

export const FAKE_TOKEN = 'fake-access-token-for-tests';

export function table(
  columns: readonly (readonly [string, string])[],
  rows: readonly (readonly unknown[])[],
): { tables: unknown[] } {
  return {
    tables: [
      {
        name: 'PrimaryResult',
        columns: columns.map(([name, type]) => ({ name, type })),
        rows,
      },
    ],
  };
}

export function upstreamError(code: string, message: string, inner?: string): unknown {
  return {
    error: {
      code,
      message,
      ...(inner === undefined ? {} : { innererror: { code: 'SemanticError', message: inner } }),
    },
  };
}

/** The API's answer to a query naming what does not exist: the cause three levels in. */
export function semanticError(message: string): unknown {
  return {
    error: {
      code: 'BadArgumentError',
      message: 'The request had some invalid properties',
      innererror: {
        code: 'SemanticError',
        message: 'A semantic error occurred.',
        innererror: { code: 'SEM0100', message },
      },
    },
  };
}

export class FakeAppInsights {
  readonly requests: RecordedRequest[] = [];
  /** Replies used once each, in order, before `fallback`. */
  private readonly queue: FakeReply[] = [];
  fallback: FakeReply = { body: table([], []) };
  /** Answers by request, when set: for a test that serves data by what the query asks. */
  handler: ((request: RecordedRequest) => FakeReply) | undefined;
  acceptedToken = FAKE_TOKEN;

  private constructor(private readonly server: Server) {}

  static async start(): Promise<FakeAppInsights> {
    const server = createServer();
    const fake = new FakeAppInsights(server);
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: RecordedRequest['body'] = {};
        try {
          body = JSON.parse(text) as RecordedRequest['body'];
        } catch {
          // recorded as {}: the assertions on `body` will show it.
        }
        fake.requests.push({
          method: req.method ?? '',
          path: req.url ?? '',
          headers: req.headers,
          body,
        });
        const reply = fake.answer(req.method ?? '', req.url ?? '', req.headers, body);
        res.writeHead(reply.status ?? 200, {
          'content-type': 'application/json; charset=utf-8',
          ...reply.headers,
        });
        res.end(JSON.stringify(reply.body));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  get url(): string {
    return `http://127.0.0.1:${String((this.server.address() as AddressInfo).port)}`;
  }

  reply(...replies: FakeReply[]): void {
    this.queue.push(...replies);
  }

  reset(): void {
    this.requests.length = 0;
    this.queue.length = 0;
    this.fallback = { body: table([], []) };
    this.handler = undefined;
    this.acceptedToken = FAKE_TOKEN;
  }

  get last(): RecordedRequest {
    const last = this.requests.at(-1);
    if (!last) throw new Error('the fake received no request');
    return last;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.server.close(() => {
        resolve();
      });
    });
  }

  private answer(
    method: string,
    path: string,
    headers: IncomingHttpHeaders,
    body: RecordedRequest['body'],
  ): FakeReply {
    const route = /^\/v1\/(apps|workspaces)\/[^/]+\/query$/.exec(path);
    if (method !== 'POST' || !route) {
      return { status: 404, body: upstreamError('PathNotFoundError', `No route for ${path}`) };
    }
    if (headers.authorization !== `Bearer ${this.acceptedToken}`) {
      return {
        status: 401,
        body: upstreamError('InvalidAuthenticationToken', 'Valid authentication was not provided'),
      };
    }
    if (!String(headers['content-type']).startsWith('application/json')) {
      return { status: 415, body: upstreamError('UnsupportedMediaType', 'Use application/json') };
    }
    const problem = schemaError(
      typeof body.query === 'string' ? body.query : '',
      route[1] === 'apps' ? 'app' : 'workspace',
    );
    if (problem !== undefined) return { status: 400, body: semanticError(problem) };
    const queued = this.queue.shift();
    if (queued) return queued;
    return this.handler ? this.handler({ method, path, headers, body }) : this.fallback;
  }
}
