import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import {
  CamelCasePlugin,
  CompiledQuery,
  Kysely,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type Driver,
  type SqliteDatabase,
  type SqliteDialectConfig,
  type SqliteStatement,
} from 'kysely';
import { migrateToLatest, sqliteTypes } from './migrations.js';
import type { Database } from './schema.js';

export function sqliteFile(userDataDir: string): string {
  return join(userDataDir, 'forms.sqlite');
}

/**
 * Opens (creating if needed) the SQLite database in `userDataDir` and applies the migrations.
 * WAL so readers never wait for the writer, and `synchronous=FULL` so a commit is on disk (WAL
 * synced) before it returns: the 200 of an ingest follows its durable row (docs/forms.md).
 */
export async function openSqliteDatabase(userDataDir: string): Promise<Kysely<Database>> {
  mkdirSync(userDataDir, { recursive: true, mode: 0o700 });
  const sqlite = new SQLite(sqliteFile(userDataDir));
  // 8 KiB pages, for a database this creates (an existing one keeps its own): a 1 KiB submission
  // is a row of about 2.3 KiB (raw body, answers, preview), one to a 4 KiB page but three to an
  // 8 KiB one, so each group commit writes a third fewer WAL frames (measured: about 10% less time
  // per commit). Set before WAL mode, which fixes the page size.
  sqlite.pragma('page_size = 8192');
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('busy_timeout = 5000');
  const db = new Kysely<Database>({
    dialect: new ImmediateSqliteDialect({ database: withStatementCache(sqlite) }),
    plugins: [new CamelCasePlugin()],
  });
  await migrateToLatest(db, sqliteTypes);
  return db;
}

/**
 * Transactions that take the write lock when they begin. A deferred transaction (SQLite's default,
 * and Kysely's `begin`) that reads and then writes cannot upgrade its lock while the writer thread
 * holds it: SQLite answers SQLITE_BUSY at once, without waiting `busy_timeout`, and the request
 * answered 500. `BEGIN IMMEDIATE` waits for the lock up front, under `busy_timeout`.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  constructor(private readonly config: SqliteDialectConfig) {
    super(config);
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.config);
  }
}

/**
 * Kysely prepares every query anew; on the ingest path preparing costs as much as running. The
 * query builder produces the same SQL text for the same query shape, so prepared statements are
 * kept by text (bounded, oldest dropped first).
 */
function withStatementCache(sqlite: SQLite.Database, max = 256): SqliteDatabase {
  const cache = new Map<string, SqliteStatement>();
  return {
    close: () => sqlite.close(),
    prepare: (sql) => {
      let stmt = cache.get(sql);
      if (!stmt) {
        stmt = sqlite.prepare(sql);
        if (cache.size >= max) {
          const oldest = cache.keys().next().value;
          if (oldest !== undefined) cache.delete(oldest);
        }
        cache.set(sql, stmt);
      }
      return stmt;
    },
  };
}
