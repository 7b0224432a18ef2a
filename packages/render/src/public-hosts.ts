import {
  plainAddress,
  trustedHost,
  untrustedHost,
  type HostedRequest,
  type TrustedHosts,
} from '@havn/shared';

// Which Host and Origin the service trusts (docs/render.md#hosts-and-origins). The Host header is
// the client's to choose, so it goes into a URL the service hands out (`cdpUrl`, `liveUrl`,
// discovery) only when it names the service: a loopback name, the address the request reached,
// PUBLIC_BASE_URL's host or one of ALLOWED_PUBLIC_HOSTS. Anonymous mode refuses any other Host
// outright, the DNS-rebinding defence development servers use (a rebound name is a name no one
// configured). The CDP door and the live view also refuse a browser's Origin unless it is the
// service's own; clients that send none (automation libraries) are not browsers and pass.

export interface PublicHosts extends TrustedHosts {
  /** Refuse a request whose Host is not trusted at all (ALLOW_ANONYMOUS=1). */
  readonly refuseUntrusted: boolean;
}

/** The refusal of an untrusted Host in anonymous mode, or undefined when the request may go on. */
export function hostRefusal(request: HostedRequest, hosts: PublicHosts): string | undefined {
  return hosts.refuseUntrusted ? untrustedHost(request, hosts) : undefined;
}

/**
 * The refusal of a browser's foreign Origin, or undefined: no Origin, PUBLIC_BASE_URL's, or one
 * whose host is the request's own trusted Host (the page the service served, on either scheme,
 * since a TLS proxy may stand in front).
 */
export function originRefusal(request: HostedRequest, hosts: PublicHosts): string | undefined {
  const origin = request.headers.origin;
  if (origin === undefined) return undefined;
  if (hosts.baseUrl !== undefined && origin === new URL(hosts.baseUrl).origin) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(origin);
  } catch {
    url = undefined;
  }
  const own =
    url !== undefined &&
    (url.protocol === 'http:' || url.protocol === 'https:') &&
    url.host === request.headers.host?.toLowerCase() &&
    trustedHost(request, hosts);
  return own ? undefined : `origin ${JSON.stringify(origin)} is not allowed`;
}

/**
 * The scheme and host of the URLs the service hands out: PUBLIC_BASE_URL, else the request's Host
 * when trusted, else the address the request reached (never a name the client made up).
 */
export function publicOrigin(
  request: HostedRequest,
  hosts: PublicHosts,
  protocol: 'http' | 'https',
): string {
  if (hosts.baseUrl !== undefined) return hosts.baseUrl;
  const { host } = request.headers;
  if (host !== undefined && trustedHost(request, hosts)) return `${protocol}://${host}`;
  const address = plainAddress(request.socket.localAddress) ?? '127.0.0.1';
  const shown = address.includes(':') ? `[${address}]` : address;
  return `${protocol}://${shown}:${String(request.socket.localPort ?? 80)}`;
}

/** Loopback only: what a test or a plugin gets when nothing is configured. */
export const LOOPBACK_ONLY: PublicHosts = Object.freeze({
  baseUrl: undefined,
  allowed: Object.freeze([]),
  refuseUntrusted: false,
});
