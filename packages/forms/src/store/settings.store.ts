import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

/** Values the instances on one database share, each written once. */
export class SettingsStore {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * The value stored under `key`; when there is none yet, `create()` is stored first. Instances
   * starting together may each create one: the first insert wins, and every instance reads that.
   */
  async getOrCreate(key: string, create: () => string): Promise<string> {
    await this.db
      .insertInto('settings')
      .values({ key, value: create() })
      .onConflict((oc) => oc.column('key').doNothing())
      .execute();
    const row = await this.db
      .selectFrom('settings')
      .select('value')
      .where('key', '=', key)
      .executeTakeFirstOrThrow();
    return row.value;
  }
}
