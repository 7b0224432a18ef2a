// The telemetry query APIs' JSON POST (upstream/http-request.ts does the HTTP).
import type { IncomingHttpHeaders } from 'node:http';
import { httpRequest } from './http-request.js';

export interface HttpTextAnswer {
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
): Promise<HttpTextAnswer> {
  const answer = await httpRequest(url, {
    method: 'POST',
    headers,
    body,
    signal,
    timeoutMs: TIMEOUT_MS,
    unreachableHint: "Check the network, or the API URL with 'havn configure telemetry --show'.",
  });
  return { ...answer, body: answer.body.toString('utf8') };
}
