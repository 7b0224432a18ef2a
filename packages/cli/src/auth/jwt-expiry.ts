// The expiry of a JWT access token, read from its `exp` claim without verifying it: the CLI only
// needs to know when to stop using a token, the API verifies it.

/** Epoch milliseconds of `exp`, or null when the token is not a JWT or has no `exp`. */
export function jwtExpiry(token: string): number | null {
  const payload = token.split('.')[1];
  if (payload === undefined) return null;
  try {
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as unknown;
    const exp =
      typeof claims === 'object' && claims !== null ? (claims as { exp?: unknown }).exp : undefined;
    return typeof exp === 'number' && Number.isFinite(exp) ? exp * 1000 : null;
  } catch {
    return null;
  }
}
