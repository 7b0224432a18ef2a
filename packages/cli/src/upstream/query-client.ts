// The query APIs: POST {api_url}/v1/apps/<app_id>/query (Application Insights) or
// {api_url}/v1/workspaces/<workspace_id>/query (Log Analytics), with a bearer token and the body
// { query, timespan }; both answer in the same shape (docs/cli.md#the-query-sent).
import type { TelemetryBackend } from '../config/telemetry-config.js';
import { CliError } from '../errors.js';
import { primaryTable, type ResultTable } from './coerce.js';
import { postJson, type HttpTextAnswer } from './http-post.js';
import {
  readUpstreamError,
  retryAfterSeconds,
  serviceName,
  upstreamFailure,
} from './upstream-errors.js';

/** Which API, which app or workspace. */
export interface QueryTarget {
  readonly backend: TelemetryBackend;
  readonly id: string;
  readonly apiUrl: string;
}

export interface QueryRequest {
  readonly target: QueryTarget;
  readonly accessToken: string;
  readonly query: string;
  /** ISO 8601 duration or interval, e.g. PT1H; none when the query bounds time itself. */
  readonly timespan: string | undefined;
  readonly verbose: boolean;
  /** Aborts the request (Ctrl-C during --follow). */
  readonly signal?: AbortSignal;
}

export interface QueryResult extends ResultTable {
  /** A 200 answer that carries an `error` (PartialError): printed as a warning. */
  readonly warning?: string;
}

export interface QueryDeps {
  readonly now: () => number;
  readonly sleep: (ms: number) => Promise<void>;
}

/** A 429 whose Retry-After is at most this many seconds is retried once, automatically. */
const AUTO_RETRY_MAX_SECONDS = 10;

export async function runQuery(request: QueryRequest, deps: QueryDeps): Promise<QueryResult> {
  const url = queryUrl(request.target);
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json',
    authorization: `Bearer ${request.accessToken}`,
  };
  const body = JSON.stringify({
    query: request.query,
    ...(request.timespan === undefined ? {} : { timespan: request.timespan }),
  });
  let answer = await postJson(url, headers, body, request.signal);
  if (answer.status === 429) {
    const wait = retryAfterOf(answer, deps.now());
    if (wait !== undefined && wait <= AUTO_RETRY_MAX_SECONDS) {
      await deps.sleep(wait * 1000);
      answer = await postJson(url, headers, body, request.signal);
    }
  }
  const parsed = parseBody(answer);
  if (answer.status !== 200) {
    throw upstreamFailure({
      status: answer.status,
      body: parsed,
      retryAfterSeconds: retryAfterOf(answer, deps.now()),
      target: request.target,
      query: request.query,
      verbose: request.verbose,
    });
  }
  if (parsed === undefined) {
    throw new CliError(`${serviceName(request.target)} answered 200 with a body that is not JSON.`);
  }
  const table = primaryTable(parsed);
  const partial = readUpstreamError(parsed);
  return partial
    ? { ...table, warning: `${partial.code || 'PartialError'}: ${partial.message}` }
    : table;
}

export function queryUrl(t: QueryTarget): URL {
  const kind = t.backend === 'app' ? 'apps' : 'workspaces';
  return new URL(`${t.apiUrl.replace(/\/+$/, '')}/v1/${kind}/${encodeURIComponent(t.id)}/query`);
}

function retryAfterOf(answer: HttpTextAnswer, now: number): number | undefined {
  const header = answer.headers['retry-after'];
  return retryAfterSeconds(typeof header === 'string' ? header : undefined, now);
}

function parseBody(answer: HttpTextAnswer): unknown {
  try {
    return JSON.parse(answer.body) as unknown;
  } catch {
    return undefined;
  }
}
