import { checkHost, type HostPolicy, type Resolver } from '@havn/shared';
import { renderErrors } from '../errors.js';

// The early check of a render's `url` (docs/render.md#private-network-policy):
// WHATWG parsing canonicalises numeric host forms (2130706433, 0x7f000001, 0177.0.0.1 all become
// 127.0.0.1), only http and https pass, then every resolved address is classified. The proxy
// judges the same URL again when the browser asks for it; this check exists to answer a clear 400
// before any work is queued.

/**
 * The parsed URL when it may be rendered; otherwise a render error: 400, or 502 unresolvable. A
 * private-address 400 names the two settings that relax the policy
 * (docs/render.md#private-network-policy), so whoever meets it knows the way out without the docs.
 */
export async function checkRenderUrl(raw: string, policy: HostPolicy, field = 'url'): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw renderErrors.error('URL_INVALID', { field });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw renderErrors.error('URL_SCHEME', { field, scheme: url.protocol });
  }
  if (url.username || url.password) {
    // Credentials in the URL would travel to the proxy in clear and land in logs.
    throw renderErrors.error('URL_CREDENTIALS', { field });
  }
  const verdict = await checkHost(url.hostname, policy);
  if (!verdict.ok) {
    if (verdict.reason === 'refused') {
      throw renderErrors.error('URL_PRIVATE', {
        field,
        reason: verdict.message,
        host: verdict.host,
      });
    }
    throw renderErrors.error('NAVIGATION_FAILED', { reason: verdict.message });
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
