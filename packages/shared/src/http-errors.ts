import type { FastifyError, FastifyInstance } from 'fastify';

/**
 * An error that carries the HTTP status it answers with; its message is shown to the client. Made
 * by a package's error catalogue (error-catalogue.ts), it also carries the entry's code, which the
 * answer names in its `Havn-Error-Code` header (docs/errors.md).
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code?: string,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

/** The answer's header naming the error's catalogue code (the body stays `{ error }`). */
export const ERROR_CODE_HEADER = 'havn-error-code';

/** The body every failure answers with: one string field `error`, nothing else. */
export interface ErrorBody {
  error: string;
}

/** The path of a request URL, without its query (which may hold a token). */
function pathOf(url: string): string {
  return url.split('?', 1)[0] ?? url;
}

/** What a service says when a failure is its storage being out of reach for a moment. */
export interface Unavailable {
  /** The answer's `error`, naming what is unavailable (never a connection string). */
  message: string;
  /** Seconds, for Retry-After. */
  retryAfterSeconds: number;
}

export interface ErrorHandlerOptions {
  /**
   * Recognises a failure of the service's storage that will pass (a database restarting, a full
   * disk): answered 503 with Retry-After and logged as a warning, not as a bug.
   */
  unavailable?: (err: unknown) => Unavailable | undefined;
}

/**
 * The one place errors become responses: `HttpError` answers its status and message; Fastify's own
 * client errors (validation, bad JSON, too large, wrong media type) keep their 4xx status with a
 * message naming the field; storage out of reach answers 503 with Retry-After; anything else is
 * logged with its stack and answers a bare 500.
 */
export function installErrorHandler(app: FastifyInstance, options: ErrorHandlerOptions = {}): void {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    if (err instanceof HttpError) {
      const { code } = err as HttpError;
      if (code !== undefined) void reply.header(ERROR_CODE_HEADER, code);
      return reply.code(err.status).send({ error: err.message } satisfies ErrorBody);
    }
    const unavailable = options.unavailable?.(err);
    if (unavailable) {
      request.log.warn({ err: { message: err.message, code: err.code } }, unavailable.message);
      return reply
        .code(503)
        .header('retry-after', String(unavailable.retryAfterSeconds))
        .send({ error: unavailable.message } satisfies ErrorBody);
    }
    const status = err.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      return reply.code(status).send({ error: err.message } satisfies ErrorBody);
    }
    request.log.error({ err }, 'unhandled error');
    return reply.code(500).send({ error: 'internal server error' } satisfies ErrorBody);
  });
  app.setNotFoundHandler((request, reply) =>
    reply
      .code(404)
      .send({ error: `no route ${request.method} ${pathOf(request.url)}` } satisfies ErrorBody),
  );
}
