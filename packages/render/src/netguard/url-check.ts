import { checkHost, HttpError, type HostPolicy, type Resolver } from '@havn/shared';

// The early check of a render's `url` (docs/render.md#private-network-policy):
// WHATWG parsing canonicalises numeric host forms (2130706433, 0x7f000001, 0177.0.0.1 all become
// 127.0.0.1), only http and https pass, then every resolved address is classified. The proxy
// judges the same URL again when the browser asks for it; this check exists to answer a clear 400
// before any work is queued.

/**
 * What a private-address 400 adds (docs/render.md#private-network-policy): the two settings that
 * relax the policy, so whoever meets the refusal knows the way out without the docs.
 */
export function relaxHint(host: string): string {
  return `; to allow it, set ALLOWED_HOSTS=${host} (this host only) or ALLOW_PRIVATE_NETWORK=1 (no private-network policy) on the render service`;
}

/** The parsed URL when it may be rendered; otherwise an HttpError (400, or 502 unresolvable). */
export async function checkRenderUrl(raw: string, policy: HostPolicy, field = 'url'): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new HttpError(400, `${field} must be an absolute http or https URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new HttpError(
      400,
      `${field} must use http or https; the scheme ${url.protocol} is not allowed`,
    );
  }
  if (url.username || url.password) {
    // Credentials in the URL would travel to the proxy in clear and land in logs.
    throw new HttpError(400, `${field} must not carry user:password credentials`);
  }
  const verdict = await checkHost(url.hostname, policy);
  if (!verdict.ok) {
    if (verdict.reason === 'refused') {
      throw new HttpError(400, `${field}: ${verdict.message}${relaxHint(verdict.host)}`);
    }
    throw new HttpError(502, `navigation failed: ${verdict.message}`);
  }
  return url;
}

/**
 * Why the private-network policy refuses an http(s) URL a CDP client navigates to, or undefined
 * (other schemes, and names that do not resolve, are the browser's to fail).
 */
export async function policyRefusal(
  raw: string,
  policy: HostPolicy,
  resolve?: Resolver,
): Promise<string | undefined> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  const verdict = await checkHost(url.hostname, policy, resolve);
  if (verdict.ok || verdict.reason !== 'refused') return undefined;
  return `${verdict.message} (private-network policy)`;
}
