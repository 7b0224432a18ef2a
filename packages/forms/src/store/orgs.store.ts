import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

export interface Org {
  slug: string;
  name: string;
  createdAt: string;
  updatedAt: string;
}

export interface OrgTokenInfo {
  id: string;
  label: string;
  createdAt: string;
}

/** Organisations and their tokens. Token hashes go in, and never come out except as a match. */
export class OrgStore {
  constructor(private readonly db: Kysely<Database>) {}

  async list(only?: string): Promise<Org[]> {
    let q = this.db.selectFrom('orgs').selectAll().orderBy('slug');
    if (only !== undefined) q = q.where('slug', '=', only);
    return q.execute();
  }

  /** Whether any organisation exists (a first-run setup code is void once one does). */
  async any(): Promise<boolean> {
    const row = await this.db.selectFrom('orgs').select('slug').limit(1).executeTakeFirst();
    return row !== undefined;
  }

  async get(slug: string): Promise<Org | undefined> {
    return this.db.selectFrom('orgs').selectAll().where('slug', '=', slug).executeTakeFirst();
  }

  /** Inserts the organisation; false when the slug is taken. */
  async create(org: Org): Promise<boolean> {
    const result = await this.db
      .insertInto('orgs')
      .values(org)
      .onConflict((oc) => oc.column('slug').doNothing())
      .executeTakeFirst();
    return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
  }

  async rename(slug: string, name: string, updatedAt: string): Promise<Org | undefined> {
    await this.db.updateTable('orgs').set({ name, updatedAt }).where('slug', '=', slug).execute();
    return this.get(slug);
  }

  async addToken(token: OrgTokenInfo & { orgSlug: string; tokenHash: string }): Promise<void> {
    await this.db.insertInto('orgTokens').values(token).execute();
  }

  async tokens(orgSlug: string): Promise<OrgTokenInfo[]> {
    return this.db
      .selectFrom('orgTokens')
      .select(['id', 'label', 'createdAt'])
      .where('orgSlug', '=', orgSlug)
      .orderBy('createdAt')
      .execute();
  }

  async deleteToken(orgSlug: string, id: string): Promise<boolean> {
    const r = await this.db
      .deleteFrom('orgTokens')
      .where('orgSlug', '=', orgSlug)
      .where('id', '=', id)
      .executeTakeFirst();
    return r.numDeletedRows > 0n;
  }

  /** The organisation a token hash belongs to, if any. */
  async orgOfTokenHash(tokenHash: string): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('orgTokens')
      .select('orgSlug')
      .where('tokenHash', '=', tokenHash)
      .executeTakeFirst();
    return row?.orgSlug;
  }
}
