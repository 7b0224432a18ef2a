import type { IncomingHttpHeaders } from 'node:http';
import { bearerToken, queryToken, tokensEqual } from '@havn/shared';

// docs/render.md#authentication: the service token as `Authorization: Bearer <token>` or
// `?token=<token>`, compared in constant time; ALLOW_ANONYMOUS=1 turns the check off. Exported as a
// plain function so that the CDP door can judge a WebSocket upgrade (a bare IncomingMessage)
// exactly as the routes do.

export interface AuthSettings {
  readonly apiToken: string | undefined;
  readonly allowAnonymous: boolean;
}

// What a request presents when its query names `token` twice or spelled otherwise (`%74oken`):
// matches no token, so it is refused as a wrong one would be.
const AMBIGUOUS = '';

/** The token a request presents: the bearer header first, else the `token` query parameter. */
export function presentedToken(request: {
  headers: IncomingHttpHeaders;
  url?: string | undefined;
}): string | undefined {
  const fromHeader = bearerToken(request.headers.authorization);
  if (fromHeader !== undefined) return fromHeader;
  const token = queryToken(request.url ?? '');
  return token === null ? AMBIGUOUS : token;
}

/** True when the request carries the service token (or the service runs anonymous). */
export function isAuthorized(
  request: { headers: IncomingHttpHeaders; url?: string | undefined },
  settings: AuthSettings,
): boolean {
  if (settings.allowAnonymous) return true;
  const expected = settings.apiToken;
  const presented = presentedToken(request);
  if (expected === undefined || presented === undefined) return false;
  return tokensEqual(presented, expected);
}
