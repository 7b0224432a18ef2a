import { errorCatalogue, HttpError } from '@havn/shared';

// Every error the render service answers on purpose, by code (docs/errors.md lists them,
// generated from here). Throw `renderErrors.error('NAME', { slots })`; read `err.code` (or
// `renderErrors.nameOf(err)`), never the message: metrics and logs classify by code.

/** What a private-address refusal adds: the two settings that relax the policy. */
const RELAX =
  '; to allow it, set ALLOWED_HOSTS={host} (this host only) or ALLOW_PRIVATE_NETWORK=1 (no private-network policy) on the render service';

export const renderErrors = errorCatalogue('RENDER', {
  // authentication and access
  TOKEN_INVALID: { status: 401, message: 'missing or invalid token' },
  HOST_REFUSED: { status: 403, message: '{reason}' },

  // a request that is not well formed
  OPTIONS_INVALID: { status: 400, message: '{problem}' },
  PROFILE_INVALID: { status: 400, message: '{field} {rule}' },
  BASE64_NOT_IN_BATCH: {
    status: 400,
    message: 'return base64 is not available in a batch; use url',
  },
  BASE64_NOT_FOR_TEXT: {
    status: 400,
    message: 'return base64 is only for images; leave it out or use url',
  },
  URL_INVALID: { status: 400, message: '{field} must be an absolute http or https URL' },
  URL_SCHEME: {
    status: 400,
    message: '{field} must use http or https; the scheme {scheme} is not allowed',
  },
  URL_CREDENTIALS: { status: 400, message: '{field} must not carry user:password credentials' },

  // the private-network policy
  URL_PRIVATE: { status: 400, message: `{field}: {reason}${RELAX}` as const },
  NAVIGATION_REFUSED: { status: 400, message: `navigation refused: {reason}${RELAX}` as const },

  // a render
  CAPTURE_INPUT_INVALID: { status: 400, message: '{field} {problem}' },
  CLIENT_GONE: { status: 499, message: 'client disconnected' },
  PDF_TOOL_FAILED: { status: 500, message: '{reason}' },
  NAVIGATION_FAILED: { status: 502, message: 'navigation failed: {reason}' },
  CAPTURE_FAILED: { status: 502, message: 'capture failed: {reason}' },
  PAGE_CRASHED: {
    status: 502,
    message:
      'page crashed: its renderer process died (out of memory past PAGE_MAX_HEAP_MB, or a crash in Chromium); the browser is unharmed',
  },
  BROWSER_CRASHED: {
    status: 502,
    message:
      'the browser crashed during the render; a fresh browser takes the next request, retry it',
  },
  QUEUE_FULL: {
    status: 503,
    message: 'render queue full: no slot free within {ms} ms (MAX_CONCURRENCY {slots})',
  },
  BROWSER_LAUNCH_FAILED: { status: 503, message: 'the browser could not be started: {reason}' },
  TIMEOUT: { status: 504, message: 'render timed out after {ms} ms' },
  BROWSER_HUNG: {
    status: 504,
    message: 'the browser stopped responding during the render and was replaced; retry the request',
  },

  // POST /v1/pdf/merge
  MERGE_INPUT_INVALID: { status: 400, message: 'inputs[{index}]: {problem}' },
  MERGE_ARTIFACT_NOT_FOUND: { status: 400, message: 'artifact {id} does not exist or has expired' },
  MERGE_ARTIFACT_NOT_PDF: { status: 400, message: 'artifact {id} is {type}, not a PDF' },
  MERGE_ARTIFACT_TOO_LARGE: {
    status: 400,
    message: 'artifact {id} is {bytes} bytes; a merge reads at most {max}',
  },
  MERGE_INPUT_FAILED: { status: 502, message: 'inputs[{index}]: {reason}' },

  // artifacts
  LABEL_INVALID: { status: 400, message: 'label must be key:value, got {pair}' },
  LIMIT_INVALID: { status: 400, message: 'limit must be from 1 to 500' },
  ARTIFACT_QUERY_INVALID: { status: 400, message: '{problem}' },
  ARTIFACT_NOT_FOUND: { status: 404, message: 'no such artifact (it may have expired)' },
  STORE_FAILING: {
    status: 503,
    message: 'the artifact store cannot be written ({reason}), so the output was not stored',
  },
  STORE_FULL: {
    status: 507,
    message:
      'the artifact store is full, so the output was not stored; retry later, or use return base64',
  },

  // saved browser states (docs/sessions.md#log-in-once-render-many-times)
  STATE_NAME_INVALID: {
    status: 400,
    message:
      "{field} must match {pattern} (lower-case letters, digits, '.', '_' and '-', up to 64)",
  },
  STATE_NOT_FOUND: { status: 404, message: 'state {name} does not exist' },
  STATE_KEY_MISSING: {
    status: 409,
    message:
      '{doing} needs STATE_KEY: set STATE_KEY to 32 random bytes in base64 (openssl rand -base64 32) and restart the service',
  },
  STATE_UNREADABLE: {
    status: 409,
    message:
      'state {name} cannot be read with this STATE_KEY (it was saved under another key, or its stored bytes were changed); save it again',
  },
  STATE_TOO_LARGE: {
    status: 413,
    message: 'state {name} is {bytes} bytes, over MAX_STATE_BYTES ({max})',
  },

  // browser sessions
  SESSION_INPUT_INVALID: { status: 400, message: '{field}: {reason}' },
  SESSION_NO_PAGE: { status: 400, message: 'the session has no open page to capture' },
  SESSION_SELECTOR_NOT_VISIBLE: {
    status: 400,
    message: 'selector: no visible element matches {selector}',
  },
  SESSION_NAVIGATION_REFUSED: { status: 400, message: 'navigation refused: {reason}' },
  DISCOVERY_NEEDS_SESSION_TOKEN: {
    status: 400,
    message:
      'discovery at the service root needs a session token; with the service token ask /v1/sessions/<id>/json/version',
  },
  SESSION_NOT_FOUND: { status: 404, message: 'no session {id}' },
  SESSION_CLOSED: {
    status: 404,
    message: 'session {id} is closed ({reason}); GET /v1/sessions/{id}/events says why',
  },
  SESSIONS_FULL: { status: 429, message: 'MAX_SESSIONS ({max}) reached' },
  OWNER_UNREACHABLE: {
    status: 502,
    message: 'the instance {instance} that owns session {id} did not answer',
  },
  CLUSTER_SESSIONS_FULL: { status: 429, message: 'MAX_SESSIONS ({max}) reached on every instance' },
  SHUTTING_DOWN: { status: 503, message: 'the service is shutting down' },
});

/** A render error's entry name (`QUEUE_FULL`), for tables keyed by it. */
export type RenderErrorName = Parameters<typeof renderErrors.error>[0];

/**
 * `err` told about one input of several (`inputs[2]: …`): the same status and code, so a client
 * learns which input failed without losing what failed.
 */
export function ofInput(index: number, err: HttpError): HttpError {
  return new HttpError(err.status, `inputs[${index}]: ${err.message}`, err.code);
}
