// The Application Insights query API: POST {api_url}/v1/apps/<app_id>/query with a bearer token
// and the body { query, timespan } (docs/cli.md#the-query-sent).
import { CliError } from '../errors.js';
import { primaryTable, type ResultTable } from './coerce.js';
import { postJson, type HttpAnswer } from './http-post.js';
import { readUpstreamError, retryAfterSeconds, upstreamFailure } from './upstream-errors.js';

export interface QueryRequest {
  readonly apiUrl: string;
  readonly appId: string;
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
  const url = new URL(
    `${request.apiUrl.replace(/\/+$/, '')}/v1/apps/${encodeURIComponent(request.appId)}/query`,
  );
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
      appId: request.appId,
      query: request.query,
      verbose: request.verbose,
    });
  }
  if (parsed === undefined) {
    throw new CliError(`Application Insights answered 200 with a body that is not JSON.`);
  }
  const table = primaryTable(parsed);
  const partial = readUpstreamError(parsed);
  return partial
    ? { ...table, warning: `${partial.code || 'PartialError'}: ${partial.message}` }
    : table;
}

function retryAfterOf(answer: HttpAnswer, now: number): number | undefined {
  const header = answer.headers['retry-after'];
  return retryAfterSeconds(typeof header === 'string' ? header : undefined, now);
}

function parseBody(answer: HttpAnswer): unknown {
  try {
    return JSON.parse(answer.body) as unknown;
  } catch {
    return undefined;
  }
}
