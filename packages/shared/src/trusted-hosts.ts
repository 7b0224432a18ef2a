import type { IncomingHttpHeaders } from 'node:http';
import { isIPv4 } from 'node:net';

// Which Host header names a service (docs/render.md#hosts-and-origins, docs/forms.md#open-mode).
// The Host header is the client's to choose. A service with no credential to check (render's
// anonymous mode, the forms server's open mode) refuses any Host it was not told about: the
// DNS-rebinding defence development servers use, since a rebound name is one no one configured.

/** The names a service was told are its own. */
export interface TrustedHosts {
  /** PUBLIC_BASE_URL, without a trailing slash. */
  readonly baseUrl: string | undefined;
  /** ALLOWED_PUBLIC_HOSTS, lower case; `.example.com` admits example.com and its subdomains. */
  readonly allowed: readonly string[];
}

/** What the checks read of a request: a Fastify request's `raw`, or an upgrade's message. */
export interface HostedRequest {
  readonly headers: IncomingHttpHeaders;
  readonly socket: { readonly localAddress?: string | undefined; localPort?: number | undefined };
}

/** What ALLOWED_PUBLIC_HOSTS may list: host names, or `.example.com` for a domain and its subdomains. */
export const PUBLIC_HOST_PATTERN = /^\.?[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;

// `name`, `1.2.3.4` or `[v6]`, with an optional port: nothing else is a Host a browser sends.
const HOST = /^(\[[0-9a-f:.]+\]|[a-z0-9_.-]+)(?::(\d{1,5}))?$/;

/** The host name of a Host header (lower case, IPv6 without brackets); undefined if malformed. */
function hostnameOf(host: string | undefined): string | undefined {
  const m = HOST.exec((host ?? '').toLowerCase());
  return m?.[1]?.replace(/^\[|\]$/g, '');
}

/** `::ffff:127.0.0.1` (an IPv4 client on a dual-stack socket) read as `127.0.0.1`. */
export function plainAddress(address: string | undefined): string | undefined {
  return address?.replace(/^::ffff:(?=\d+\.)/, '');
}

function isLoopback(hostname: string): boolean {
  return (
    hostname === 'localhost' ||
    hostname.endsWith('.localhost') ||
    hostname === '::1' ||
    (isIPv4(hostname) && hostname.startsWith('127.'))
  );
}

function isAllowed(hostname: string, allowed: readonly string[]): boolean {
  return allowed.some((entry) =>
    entry.startsWith('.')
      ? hostname === entry.slice(1) || hostname.endsWith(entry)
      : hostname === entry,
  );
}

/**
 * True when the request's Host names this service: a loopback name, the address the request
 * reached, PUBLIC_BASE_URL's host or one of ALLOWED_PUBLIC_HOSTS.
 */
export function trustedHost(request: HostedRequest, hosts: TrustedHosts): boolean {
  const hostname = hostnameOf(request.headers.host);
  if (hostname === undefined) return false;
  return (
    isLoopback(hostname) ||
    hostname === plainAddress(request.socket.localAddress) ||
    (hosts.baseUrl !== undefined && hostname === new URL(hosts.baseUrl).hostname) ||
    isAllowed(hostname, hosts.allowed)
  );
}

/** The 403 message for a Host that does not name the service, or undefined when it does. */
export function untrustedHost(request: HostedRequest, hosts: TrustedHosts): string | undefined {
  if (trustedHost(request, hosts)) return undefined;
  const host = JSON.stringify(request.headers.host ?? '');
  return `host ${host} is not allowed: use a loopback address or add the name to ALLOWED_PUBLIC_HOSTS`;
}
