import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

/** The ingest rate limit's per-minute counters, shared by the instances on one database. */
export class RateLimitStore {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * Adds each key's count to its counter of the minute starting at `windowStart`; answers every
   * one of those counters' totals, other instances' counts included.
   */
  async add(
    windowStart: number,
    counts: ReadonlyMap<string, number>,
  ): Promise<Map<string, number>> {
    if (counts.size === 0) return new Map();
    const rows = await this.db
      .insertInto('rateLimits')
      .values([...counts].map(([key, count]) => ({ key, windowStart, count })))
      .onConflict((oc) =>
        oc
          .columns(['key', 'windowStart'])
          .doUpdateSet((eb) => ({ count: eb('rateLimits.count', '+', eb.ref('excluded.count')) })),
      )
      .returning(['key', 'count'])
      .execute();
    return new Map(rows.map((r) => [r.key, r.count]));
  }

  /** The counters of that minute that reached `limit`, with their totals. */
  async usedUp(windowStart: number, limit: number): Promise<Map<string, number>> {
    const rows = await this.db
      .selectFrom('rateLimits')
      .select(['key', 'count'])
      .where('windowStart', '=', windowStart)
      .where('count', '>=', limit)
      .execute();
    return new Map(rows.map((r) => [r.key, r.count]));
  }

  /** Drops the counters of minutes that started before `before`. */
  async sweep(before: number): Promise<void> {
    await this.db.deleteFrom('rateLimits').where('windowStart', '<', before).execute();
  }
}
