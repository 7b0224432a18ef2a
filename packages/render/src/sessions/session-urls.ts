import type { FastifyRequest } from 'fastify';
import { presentedToken as tokenOf } from '../auth.js';
import { publicOrigin, type PublicHosts } from '../public-hosts.js';

// How a session is reached over HTTP: the token a request presents, and the door's URLs the
// service hands out (docs/sessions.md#connecting-a-cdp-client), on the scheme and host
// docs/render.md#hosts-and-origins allows.

/** A bearer header, or `?token=` for clients that cannot send one (read as auth.ts reads it). */
export function presentedToken(request: FastifyRequest): string | undefined {
  return tokenOf(request.raw);
}

function origin(request: FastifyRequest, hosts: PublicHosts): string {
  return publicOrigin(request.raw, hosts, request.protocol);
}

/**
 * The door's WebSocket URL for the browser, or for one page (`pageId`); `https` becomes `wss`.
 * It carries the session's own token: the service token never goes in a URL.
 */
export function doorUrl(
  request: FastifyRequest,
  hosts: PublicHosts,
  id: string,
  token: string,
  pageId?: string,
): string {
  const page = pageId === undefined ? '' : `/page/${pageId}`;
  return `${origin(request, hosts).replace(/^http/, 'ws')}/v1/sessions/${id}/cdp${page}?token=${encodeURIComponent(token)}`;
}

/**
 * The live view's address (docs/sessions.md#live-view): `liveUrl` with the session's own token
 * (it drives), `watchUrl` with the view token (it only watches).
 */
export function liveViewUrl(
  request: FastifyRequest,
  hosts: PublicHosts,
  id: string,
  token: string,
): string {
  return `${origin(request, hosts)}/v1/sessions/${id}/live?token=${encodeURIComponent(token)}`;
}
