import { HttpError, bearerToken, sha256Hex, tokensEqual } from '@havn/shared';
import type { OrgStore } from '../store/orgs.store.js';

/** Who is calling an admin route (spec 2 §5, 0-decisions §2 token scopes). */
export type Principal = { kind: 'admin' } | { kind: 'org'; org: string };

/**
 * The admin token (constant-time compare) covers everything; an organisation token, looked up by
 * its hash, covers its own organisation. No token configured means open mode: everyone is admin.
 */
export async function authenticate(
  authorization: string | undefined,
  adminToken: string | undefined,
  orgs: OrgStore,
): Promise<Principal> {
  if (adminToken === undefined) return { kind: 'admin' };
  const presented = bearerToken(authorization);
  if (presented === undefined) throw new HttpError(401, 'missing bearer token');
  if (tokensEqual(presented, adminToken)) return { kind: 'admin' };
  const org = await orgs.orgOfTokenHash(sha256Hex(presented));
  if (org === undefined) throw new HttpError(401, 'invalid token');
  return { kind: 'org', org };
}

/** 403 when an organisation token reaches for another organisation. */
export function authorizeOrg(principal: Principal, org: string): void {
  if (principal.kind === 'org' && principal.org !== org) {
    throw new HttpError(403, `this token does not grant access to organisation ${org}`);
  }
}

export function requireAdmin(principal: Principal, action: string): void {
  if (principal.kind !== 'admin') throw new HttpError(403, `only the admin token can ${action}`);
}
