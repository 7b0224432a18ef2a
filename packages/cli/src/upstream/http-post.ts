// A minimal JSON POST over node:http/https. Deliberately not fetch(): Node 20 loads undici on the
// first fetch, which costs more start-up time than the whole rest of a query (bench/cli.ts).
import type { IncomingHttpHeaders } from 'node:http';
import { CliError } from '../errors.js';

export interface HttpAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

const TIMEOUT_MS = 180_000;

export async function postJson(
  url: URL,
  headers: Record<string, string>,
  body: string,
  signal?: AbortSignal,
): Promise<HttpAnswer> {
  // Load only the transport this URL needs: https pulls in TLS.
  const transport =
    url.protocol === 'https:' ? await import('node:https') : await import('node:http');
  return new Promise<HttpAnswer>((resolve, reject) => {
    const request = transport.request(
      url,
      {
        method: 'POST',
        // No keep-alive: a CLI makes one request, and an idle socket would delay exit.
        agent: false,
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        timeout: TIMEOUT_MS,
        ...(signal ? { signal } : {}),
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          });
        });
      },
    );
    request.on('timeout', () => {
      request.destroy(
        new CliError(
          `No answer from ${url.origin} within ${String(TIMEOUT_MS / 1000)} s.`,
          1,
          true,
        ),
      );
    });
    request.on('error', (error: NodeJS.ErrnoException) => {
      if (error instanceof CliError) {
        reject(error);
        return;
      }
      reject(
        new CliError(
          `Could not reach ${url.origin} (${error.code ?? error.message}). Check the network, or the API URL with 'havn configure telemetry --show'.`,
          1,
          true,
        ),
      );
    });
    request.end(body);
  });
}
