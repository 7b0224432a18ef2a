import { randomBytes } from 'node:crypto';
import type { CompiledQuery, Kysely } from 'kysely';
import type { Database } from './schema.js';
import type { WriterThread } from './writer-thread.js';

/**
 * The proof-of-work challenges whose solutions were used (docs/forms.md#spam), kept until they
 * expire so that a solution counts once, on every instance of a shared database.
 */
export class ChallengeStore {
  constructor(
    private readonly db: Kysely<Database>,
    /** SQLite: the write commits on the writer thread, so its sync never blocks the event loop. */
    private readonly thread: WriterThread | undefined,
  ) {}

  /**
   * Records the challenge `signature` as used; true only for the first claim of it. The insert
   * never fails on a repeat (it does nothing), so on SQLite it can share a group commit with
   * ingests without failing theirs: the claim whose random value was stored is the one that won.
   */
  async claim(signature: string, expiresAt: number): Promise<boolean> {
    const claim = randomBytes(12).toString('hex');
    const insert = this.db
      .insertInto('usedChallenges')
      .values({ signature, claim, expiresAt })
      .onConflict((oc) => oc.column('signature').doNothing());
    if (this.thread) {
      const compiled: CompiledQuery = insert.compile();
      await this.thread.run([{ sql: compiled.sql, rows: [compiled.parameters] }]);
      const row = await this.db
        .selectFrom('usedChallenges')
        .select('claim')
        .where('signature', '=', signature)
        .executeTakeFirst();
      return row?.claim === claim;
    }
    const inserted = await insert.returning('signature').execute();
    return inserted.length === 1;
  }

  /** Drops the challenges that expired before `now`; answers how many are still kept. */
  async sweep(now: number): Promise<number> {
    const remove = this.db.deleteFrom('usedChallenges').where('expiresAt', '<', now);
    if (this.thread) {
      const compiled: CompiledQuery = remove.compile();
      await this.thread.run([{ sql: compiled.sql, rows: [compiled.parameters] }]);
    } else {
      await remove.execute();
    }
    const row = await this.db
      .selectFrom('usedChallenges')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }
}
