import type { FastifyRequest } from 'fastify';
import { renderErrors } from '../errors.js';
import { publicOrigin, type PublicHosts } from '../public-hosts.js';
import { Session } from './session.js';

// How a session is reached over HTTP: the session a request was admitted to, and the door's URLs
// the service hands out (docs/sessions.md#connecting-a-cdp-client), on the scheme and host
// docs/render.md#hosts-and-origins allows.

/**
 * The live session of a 'session' or 'view' route, as the auth hook found it; 404 when the
 * service token named one that does not exist (or lives on another instance).
 */
export function calledSession(request: FastifyRequest): Session {
  const { caller } = request;
  if (caller.as !== 'anyone' && caller.session instanceof Session) return caller.session;
  const { id } = request.params as { id?: string };
  throw renderErrors.error('SESSION_NOT_FOUND', { id: String(id) });
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
