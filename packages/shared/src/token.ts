import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Constant-time comparison of a presented secret with the expected one. Both sides are hashed
 * first so that neither the content nor the length of the expected secret leaks through timing.
 */
export function tokensEqual(presented: string, expected: string): boolean {
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** The token of an `Authorization: Bearer <token>` header, or undefined. */
export function bearerToken(authorization: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  return match?.[1];
}

/** A URL-safe random secret of `bytes` random bytes. */
export function randomToken(bytes = 24): string {
  return randomBytes(bytes).toString('base64url');
}

/** hex(sha256(secret)), the only form in which minted tokens are stored. */
export function sha256Hex(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** The `token` parameters of a URL's query, each as it was written and as it decodes. */
function tokenParams(url: string): { raw: string; value: string }[] {
  const q = url.indexOf('?');
  if (q < 0) return [];
  const found: { raw: string; value: string }[] = [];
  const hash = url.indexOf('#', q);
  for (const pair of url.slice(q + 1, hash < 0 ? undefined : hash).split('&')) {
    const eq = pair.indexOf('=');
    const rawKey = eq < 0 ? pair : pair.slice(0, eq);
    let key: string;
    try {
      key = decodeURIComponent(rawKey.replaceAll('+', ' '));
    } catch {
      key = rawKey;
    }
    if (key.toLowerCase() !== 'token') continue;
    const rawValue = eq < 0 ? '' : pair.slice(eq + 1);
    let value: string;
    try {
      value = decodeURIComponent(rawValue.replaceAll('+', ' '));
    } catch {
      value = rawValue;
    }
    found.push({ raw: rawKey, value });
  }
  return found;
}

/**
 * The token of a URL's `?token=`, undefined when there is none, or null when the query names a
 * token more than once or in any other spelling (`%74oken`, `TOKEN`): that is refused rather than
 * guessed at, since a log redactor or a proxy may read it differently from the service.
 */
export function queryToken(url: string): string | undefined | null {
  const params = tokenParams(url);
  if (params.length === 0) return undefined;
  const [only] = params;
  if (params.length > 1 || only?.raw !== 'token') return null;
  return only.value;
}

/** The URL with the value of every `token` parameter, however spelled, replaced for logging. */
export function redactTokens(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const hash = url.indexOf('#', q);
  const query = url.slice(q + 1, hash < 0 ? undefined : hash);
  const redacted = query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const rawKey = eq < 0 ? pair : pair.slice(0, eq);
      return tokenParams(`?${rawKey}`).length > 0 ? `${rawKey}=[redacted]` : pair;
    })
    .join('&');
  return `${url.slice(0, q + 1)}${redacted}${hash < 0 ? '' : url.slice(hash)}`;
}
