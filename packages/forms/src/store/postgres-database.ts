import pg from 'pg';
import { CamelCasePlugin, Kysely, PostgresDialect } from 'kysely';
import { migrateToLatest, postgresTypes } from './migrations.js';
import type { Database } from './schema.js';

/**
 * `bigint` columns and `count(*)` answered as numbers, as SQLite answers them. Every bigint here is
 * an epoch-millisecond time or a count, far inside the 2^53 a double holds exactly.
 */
function numericInt8(): pg.TypeOverrides {
  const types = new pg.TypeOverrides();
  types.setTypeParser(pg.types.builtins.INT8, Number);
  return types;
}

/**
 * Connects to the PostgreSQL database at `url` (postgres://user:pass@host:port/db) and applies the
 * migrations. `synchronous_commit` is set on for these connections whatever the server's default:
 * a commit returns after its WAL is flushed, so the 200 of an ingest follows its durable row
 * (docs/forms.md#postgresql).
 */
export async function openPostgresDatabase(url: string, poolSize = 10): Promise<Kysely<Database>> {
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    options: '-c synchronous_commit=on',
    types: numericInt8(),
  });
  // An idle connection the server dropped (a restart, a failover) is an error on the pool; the
  // next query opens a new connection, so it is only worth ignoring here.
  pool.on('error', () => undefined);
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool }),
    plugins: [new CamelCasePlugin()],
  });
  await migrateToLatest(db, postgresTypes);
  return db;
}
