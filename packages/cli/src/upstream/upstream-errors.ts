// Maps an error answer of the query API (`{ error: { code, message, innererror } }`) to a message
// that names the cause and the fix, always with the upstream's own text
// (docs/cli.md#errors-and-exit-codes).
import { CliError } from '../errors.js';
import { stripControls } from '../output/safe-text.js';
import { isRecord } from './coerce.js';
import type { QueryTarget } from './query-client.js';

export interface UpstreamError {
  readonly code: string;
  readonly message: string;
}

/** The error object of an answer body: its code and its messages, outermost to innermost. */
export function readUpstreamError(body: unknown): UpstreamError | undefined {
  if (!isRecord(body) || !isRecord(body.error)) return undefined;
  const messages: string[] = [];
  let code = '';
  let current: unknown = body.error;
  // innererror nests; the innermost message is usually the useful one (a KQL semantic error).
  for (let depth = 0; isRecord(current) && depth < 10; depth++) {
    if (code === '' && typeof current.code === 'string') code = current.code;
    if (typeof current.message === 'string' && current.message !== '') {
      if (!messages.includes(current.message)) messages.push(current.message);
    }
    current = current.innererror;
  }
  // The text reaches the terminal; the service may echo a value from the query or the data.
  return { code: stripControls(code), message: stripControls(messages.join(': ')) };
}

export interface FailureContext {
  readonly status: number;
  readonly body: unknown;
  readonly retryAfterSeconds: number | undefined;
  readonly target: QueryTarget;
  readonly query: string;
  readonly verbose: boolean;
}

/** The service a backend's API belongs to, as its error messages name it. */
export function serviceName(t: QueryTarget): string {
  return t.backend === 'app' ? 'Application Insights' : 'Log Analytics';
}

// What each backend's 403 and 404 mean: the role that reads it and where, and where its ID is.
const SCOPE = {
  app: {
    role: (id: string) =>
      `the Reader role (or Monitoring Reader) on the Application Insights resource (app ${id})`,
    thing: 'this Application Insights resource',
    notFound: (id: string) => `Application Insights app '${id}' was not found`,
    fix: "Check the app id (the Application ID under API Access, not the instrumentation key) with 'havn configure telemetry --show'.",
  },
  workspace: {
    role: (id: string) =>
      `the Log Analytics Reader role (or Reader, or Monitoring Reader) on the Log Analytics workspace ${id}, its resource group or its subscription`,
    thing: 'this Log Analytics workspace',
    notFound: (id: string) => `Log Analytics workspace '${id}' was not found`,
    fix: "Check the Workspace ID (the workspace's Overview page, not its resource ID) with 'havn configure telemetry --show'.",
  },
} as const;

export function upstreamFailure(c: FailureContext): CliError {
  const error = readUpstreamError(c.body);
  const code = error?.code ?? '';
  const service = serviceName(c.target);
  const scope = SCOPE[c.target.backend];
  const said = error
    ? ` (${String(c.status)} ${code}: ${error.message})`
    : ` (${String(c.status)})`;
  if (c.status === 401 || (c.status === 403 && code.startsWith('InvalidAuthenticationToken'))) {
    return new CliError(
      `${service} rejected the access token${said}.\nRun 'havn login' to sign in again.`,
    );
  }
  if (c.status === 403 && code === 'InsufficientAccessError') {
    return new CliError(
      `Access denied${said}.\nYour account needs ${scope.role(c.target.id)}; a new role assignment can take up to an hour to apply.`,
    );
  }
  if (c.status === 403) {
    return new CliError(`Access denied${said}.\nCheck that your account may read ${scope.thing}.`);
  }
  if (c.status === 404) {
    return new CliError(`${scope.notFound(c.target.id)}${said}.\n${scope.fix}`);
  }
  if (c.status === 429) {
    const wait =
      c.retryAfterSeconds === undefined
        ? 'in a minute'
        : `after ${String(c.retryAfterSeconds)} seconds`;
    return new CliError(`${service} is throttling requests${said}.\nRetry ${wait}.`, 1, true);
  }
  if (c.status === 400) {
    const query = c.verbose ? `\nQuery:\n${c.query}` : '\nRun with -v to see the query.';
    return new CliError(`${service} rejected the query${said}.${query}`);
  }
  if (c.status >= 500) {
    return new CliError(`${service} failed${said}.\nTry again in a moment.`, 1, true);
  }
  return new CliError(`${service} answered an unexpected status${said}.`);
}

/** Retry-After as seconds (delta-seconds or an HTTP date), or undefined when absent or bad. */
export function retryAfterSeconds(header: string | undefined, now: number): number | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}
