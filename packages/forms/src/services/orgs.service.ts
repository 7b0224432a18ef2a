import type { Org, OrgStore } from '../store/orgs.store.js';
import { requireAdmin, type Principal } from './auth.service.js';
import { formsErrors } from '../errors.js';

export type { Org } from '../store/orgs.store.js';

/** Organisations (docs/forms.md#organisations-and-tokens). */
export class OrgsService {
  constructor(
    private readonly orgs: OrgStore,
    private readonly now: () => number,
  ) {}

  /** Every organisation for the admin token; only its own for an organisation token. */
  list(principal: Principal): Promise<Org[]> {
    return this.orgs.list(principal.kind === 'org' ? principal.org : undefined);
  }

  /** Admin token only; 409 when the slug is taken. */
  async create(principal: Principal, input: { slug: string; name: string }): Promise<Org> {
    requireAdmin(principal, 'create organisations');
    const now = new Date(this.now()).toISOString();
    const org = { slug: input.slug, name: input.name, createdAt: now, updatedAt: now };
    if (!(await this.orgs.create(org))) {
      throw formsErrors.error('ORG_SLUG_TAKEN', { slug: org.slug });
    }
    return org;
  }

  async get(slug: string): Promise<Org> {
    const org = await this.orgs.get(slug);
    if (!org) throw formsErrors.error('ORG_NOT_FOUND', { org: slug });
    return org;
  }

  async rename(slug: string, name: string): Promise<Org> {
    const org = await this.orgs.rename(slug, name, new Date(this.now()).toISOString());
    if (!org) throw formsErrors.error('ORG_NOT_FOUND', { org: slug });
    return org;
  }
}
