import type { FastifyRequest } from 'fastify';
import { presentedToken as tokenOf } from '../auth.js';

// How a session is reached over HTTP: the token a request presents, and the door's URLs the
// service hands out (docs/sessions.md#connecting-a-cdp-client).

/** A bearer header, or `?token=` for clients that cannot send one (read as auth.ts reads it). */
export function presentedToken(request: FastifyRequest): string | undefined {
  return tokenOf(request.raw);
}

/** PUBLIC_BASE_URL, or the scheme and host the request came in on. */
function origin(request: FastifyRequest, base: string | undefined): string {
  return base ?? `${request.protocol}://${request.headers.host ?? request.hostname}`;
}

/**
 * The door's WebSocket URL for the browser, or for one page (`pageId`); `https` becomes `wss`.
 * It carries the session's own token: the service token never goes in a URL.
 */
export function doorUrl(
  request: FastifyRequest,
  base: string | undefined,
  id: string,
  token: string,
  pageId?: string,
): string {
  const page = pageId === undefined ? '' : `/page/${pageId}`;
  return `${origin(request, base).replace(/^http/, 'ws')}/v1/sessions/${id}/cdp${page}?token=${encodeURIComponent(token)}`;
}

/**
 * The live view's address (docs/sessions.md#live-view): `liveUrl` with the session's own token
 * (it drives), `watchUrl` with the view token (it only watches).
 */
export function liveViewUrl(
  request: FastifyRequest,
  base: string | undefined,
  id: string,
  token: string,
): string {
  return `${origin(request, base)}/v1/sessions/${id}/live?token=${encodeURIComponent(token)}`;
}
