import { bearerToken, sha256Hex, tokensEqual } from '@havn/shared';
import type { OrgStore } from '../store/orgs.store.js';
import { formsErrors } from '../errors.js';

/** Who is calling an admin route (docs/forms.md#authentication). */
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
  if (presented === undefined) throw formsErrors.error('TOKEN_MISSING');
  if (tokensEqual(presented, adminToken)) return { kind: 'admin' };
  const org = await orgs.orgOfTokenHash(sha256Hex(presented));
  if (org === undefined) throw formsErrors.error('TOKEN_INVALID');
  return { kind: 'org', org };
}

/** 403 when an organisation token reaches for another organisation. */
export function authorizeOrg(principal: Principal, org: string): void {
  if (principal.kind === 'org' && principal.org !== org) {
    throw formsErrors.error('ORG_FORBIDDEN', { org });
  }
}

export function requireAdmin(principal: Principal, action: string): void {
  if (principal.kind !== 'admin') throw formsErrors.error('ADMIN_ONLY', { action });
}

/**
 * The checks of every admin request, in the order of docs/forms.md#authentication: 401 before
 * anything else is looked at, then 403 for an organisation token outside its organisation, then
 * 404 for an unknown organisation (so a token of another organisation learns nothing about which
 * slugs exist).
 */
export class AuthService {
  constructor(
    private readonly orgs: OrgStore,
    private readonly adminToken: string | undefined,
  ) {}

  authenticate(authorization: string | undefined): Promise<Principal> {
    return authenticate(authorization, this.adminToken, this.orgs);
  }

  /** 403 for another organisation's token, then 404 for an organisation that does not exist. */
  async authorizeOrg(principal: Principal, org: string): Promise<void> {
    authorizeOrg(principal, org);
    if (!(await this.orgs.get(org))) throw formsErrors.error('ORG_NOT_FOUND', { org });
  }
}
