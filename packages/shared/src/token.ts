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
