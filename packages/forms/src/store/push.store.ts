import type { Kysely, Selectable } from 'kysely';
import { ReadCache } from './read-cache.js';
import type { Database, PushSubscriptionTable } from './schema.js';

export type PushSubscriptionRow = Selectable<PushSubscriptionTable>;

/** Web Push subscriptions, one per browser endpoint per organisation. */
export class PushStore {
  private readonly cache = new ReadCache<PushSubscriptionRow[]>(2_000);

  constructor(private readonly db: Kysely<Database>) {}

  /** `ofOrgCached`'s answer when it is in the cache, synchronously; else undefined. */
  peekOfOrg(orgSlug: string): PushSubscriptionRow[] | undefined {
    return this.cache.peek(orgSlug)?.value;
  }

  /** `ofOrg` through a short cache: every ingest asks (see ReadCache). */
  async ofOrgCached(orgSlug: string): Promise<PushSubscriptionRow[]> {
    return this.cache.get(orgSlug, () => this.ofOrg(orgSlug));
  }

  /** Stores the subscription, replacing the keys of one with the same endpoint. */
  async upsert(sub: PushSubscriptionRow): Promise<void> {
    this.cache.invalidate(sub.orgSlug);
    await this.db
      .insertInto('pushSubscriptions')
      .values(sub)
      .onConflict((oc) =>
        oc.columns(['orgSlug', 'endpoint']).doUpdateSet({
          p256dh: sub.p256dh,
          auth: sub.auth,
          expirationTime: sub.expirationTime,
        }),
      )
      .execute();
  }

  async remove(orgSlug: string, endpoint: string): Promise<boolean> {
    this.cache.invalidate(orgSlug);
    const r = await this.db
      .deleteFrom('pushSubscriptions')
      .where('orgSlug', '=', orgSlug)
      .where('endpoint', '=', endpoint)
      .executeTakeFirst();
    return r.numDeletedRows > 0n;
  }

  async removeById(id: string): Promise<void> {
    const row = await this.get(id);
    await this.db.deleteFrom('pushSubscriptions').where('id', '=', id).execute();
    if (row) this.cache.invalidate(row.orgSlug);
  }

  async ofOrg(orgSlug: string): Promise<PushSubscriptionRow[]> {
    return this.db
      .selectFrom('pushSubscriptions')
      .selectAll()
      .where('orgSlug', '=', orgSlug)
      .execute();
  }

  async get(id: string): Promise<PushSubscriptionRow | undefined> {
    return this.db
      .selectFrom('pushSubscriptions')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
  }
}
