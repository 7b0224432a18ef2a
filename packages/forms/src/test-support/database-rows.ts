import SQLite from 'better-sqlite3';
import pg from 'pg';
import { sqliteFile } from '../store/sqlite-database.js';
import type { StoreLocation } from '../store/store.js';

type Rows = Map<string, Record<string, unknown>[]>;

function sqliteTables(userDataDir: string): Rows {
  const db = new SQLite(sqliteFile(userDataDir), { readonly: true });
  try {
    const names = db
      .prepare(`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`)
      .all() as { name: string }[];
    return new Map(
      names.map(({ name }) => [
        name,
        db.prepare(`select * from "${name}"`).all() as Record<string, unknown>[],
      ]),
    );
  } finally {
    db.close();
  }
}

async function postgresTables(url: string): Promise<Rows> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const names = await client.query<{ name: string }>(
      `select table_name as name from information_schema.tables
       where table_schema = current_schema() and table_type = 'BASE TABLE'`,
    );
    const rows: Rows = new Map();
    for (const { name } of names.rows) {
      rows.set(name, (await client.query<Record<string, unknown>>(`select * from "${name}"`)).rows);
    }
    return rows;
  } finally {
    await client.end();
  }
}

/**
 * Every row, in every table of the store at `location` (SQLite or PostgreSQL), with a column whose
 * value (bytes read as UTF-8) contains one of `needles`: as `table: row` lines, for a test that
 * asserts something was erased everywhere.
 */
export async function rowsMentioning(
  location: StoreLocation,
  needles: readonly string[],
): Promise<string[]> {
  const tables =
    location.databaseUrl === undefined
      ? sqliteTables(location.userDataDir)
      : await postgresTables(location.databaseUrl);
  const found: string[] = [];
  for (const [table, rows] of tables) {
    for (const row of rows) {
      const values = Object.values(row).map((v) =>
        Buffer.isBuffer(v) ? v.toString('utf8') : String(v),
      );
      if (values.some((v) => needles.some((n) => v.includes(n)))) {
        found.push(`${table}: ${JSON.stringify(row)}`);
      }
    }
  }
  return found;
}
