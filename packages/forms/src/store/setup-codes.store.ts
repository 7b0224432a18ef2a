import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

export interface SetupCode {
  codeHash: string;
  firstRun: boolean;
  expiresAt: number;
}

/**
 * One-time setup codes (docs/forms.md#first-run-and-setup-links). Only hashes go in; a code is
 * used by deleting its row, so of two uses at once, on one instance or several, one wins.
 */
export class SetupCodeStore {
  constructor(private readonly db: Kysely<Database>) {}

  async add(code: SetupCode): Promise<void> {
    await this.db
      .insertInto('setupCodes')
      .values({ ...code, firstRun: code.firstRun ? 1 : 0 })
      .execute();
  }

  /** The codes not expired at `now` (expired ones are swept first). */
  async live(now: number): Promise<SetupCode[]> {
    await this.db.deleteFrom('setupCodes').where('expiresAt', '<=', now).execute();
    const rows = await this.db.selectFrom('setupCodes').selectAll().execute();
    return rows.map((r) => ({
      codeHash: r.codeHash,
      firstRun: r.firstRun === 1,
      expiresAt: Number(r.expiresAt),
    }));
  }

  /** Uses up the code: true for the one caller that deleted it. */
  async take(codeHash: string): Promise<boolean> {
    const r = await this.db
      .deleteFrom('setupCodes')
      .where('codeHash', '=', codeHash)
      .executeTakeFirst();
    return r.numDeletedRows > 0n;
  }

  /** Drops the first-run codes: an organisation exists, so they are void. */
  async dropFirstRun(): Promise<void> {
    await this.db.deleteFrom('setupCodes').where('firstRun', '=', 1).execute();
  }
}
