import { randomToken, sha256Hex } from '@havn/shared';
import type { OrgStore, OrgTokenInfo } from '../store/orgs.store.js';
import { formsErrors } from '../errors.js';

/** Organisation tokens (docs/forms.md#authentication). */
export class TokensService {
  constructor(
    private readonly orgs: OrgStore,
    private readonly newId: (prefix: string) => string,
    private readonly now: () => number,
  ) {}

  /** A new token: only its hash is kept; the plaintext is in this one answer. */
  async mint(org: string, label: string): Promise<OrgTokenInfo & { token: string }> {
    const token = `havn_${randomToken(24)}`;
    const info = {
      id: this.newId('tok'),
      label,
      createdAt: new Date(this.now()).toISOString(),
    };
    await this.orgs.addToken({ ...info, orgSlug: org, tokenHash: sha256Hex(token) });
    return { ...info, token };
  }

  list(org: string): Promise<OrgTokenInfo[]> {
    return this.orgs.tokens(org);
  }

  async revoke(org: string, id: string): Promise<void> {
    if (!(await this.orgs.deleteToken(org, id))) {
      throw formsErrors.error('TOKEN_NOT_FOUND', { id });
    }
  }
}
