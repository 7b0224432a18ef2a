// One HTTP request over node:http/https, for every upstream of the CLI (the telemetry query APIs,
// the render service, the forms server). Deliberately not fetch(): Node 20 loads undici on the
// first fetch, which costs more start-up time than the whole rest of a query (bench/cli.ts).
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { CliError } from '../errors.js';

export interface HttpAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

export interface HttpRequest {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly headers: Record<string, string>;
  readonly body?: string;
  readonly signal?: AbortSignal | undefined;
  /** No byte of the answer for this long fails the request (a transient CliError). */
  readonly timeoutMs: number;
  /** The sentence after "Could not reach <origin> (…)." that says what to check. */
  readonly unreachableHint: string;
}

/** Sends the request and reads the whole answer. */
export async function httpRequest(url: URL, request: HttpRequest): Promise<HttpAnswer> {
  return withResponse(
    url,
    request,
    (response) =>
      new Promise<HttpAnswer>((resolve, reject) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks),
          });
        });
      }),
  );
}

/**
 * Sends the request and hands the answer, unread, to `use` (a download streams it to a file).
 * Connection failures and timeouts become CliErrors naming the origin.
 */
export async function withResponse<T>(
  url: URL,
  request: HttpRequest,
  use: (response: IncomingMessage) => Promise<T>,
): Promise<T> {
  // Load only the transport this URL needs: https pulls in TLS.
  const transport =
    url.protocol === 'https:' ? await import('node:https') : await import('node:http');
  return new Promise<T>((resolve, reject) => {
    const body = request.body;
    const outgoing = transport.request(
      url,
      {
        method: request.method,
        // No keep-alive: an idle socket would delay the exit of a CLI.
        agent: false,
        headers: {
          ...request.headers,
          ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }),
        },
        timeout: request.timeoutMs,
        ...(request.signal ? { signal: request.signal } : {}),
      },
      (response) => {
        use(response).then(resolve, reject);
      },
    );
    outgoing.on('timeout', () => {
      outgoing.destroy(
        new CliError(
          `No answer from ${url.origin} within ${String(request.timeoutMs / 1000)} s.`,
          1,
          true,
        ),
      );
    });
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      if (error instanceof CliError || error.name === 'AbortError') {
        reject(error);
        return;
      }
      reject(
        new CliError(
          `Could not reach ${url.origin} (${error.code ?? error.message}). ${request.unreachableHint}`,
          1,
          true,
        ),
      );
    });
    outgoing.end(body);
  });
}
