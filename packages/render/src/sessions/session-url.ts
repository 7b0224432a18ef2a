import { checkHost, HttpError, type HostPolicy } from '@havn/shared';

// The early check of a session's `url` (spec 1 §4.3 policy rule 4, which applies to sessions too):
// http(s) only, and a host whose every address is public. The guard proxy enforces the same rule
// for everything the browser does afterwards; this check only makes the refusal a clear 400.
export async function checkSessionUrl(raw: string, policy: HostPolicy): Promise<void> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new HttpError(400, 'url: not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new HttpError(400, `url: only http and https URLs are allowed, not ${url.protocol}`);
  }
  const verdict = await checkHost(url.hostname, policy);
  if (!verdict.ok) throw new HttpError(400, `url: ${verdict.message}`);
}
