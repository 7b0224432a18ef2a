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

/** How long a query waits for a connection before it fails (and its request answers 503). */
const CONNECT_TIMEOUT_MS = 5_000;

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
    // A server that does not answer must not hold a request for ever (docs/operations.md).
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    keepAlive: true,
  });
  // A connection the server dropped (a restart, a failover, pg_terminate_backend) emits 'error'.
  // The pool listens only while a connection is idle in it; one checked out between two queries
  // has no listener, and an unhandled 'error' would end the process. The query in flight, if
  // any, fails on its own (and answers 503); the pool then opens a new connection for the next.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
  });
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool }),
    plugins: [new CamelCasePlugin()],
  });
  await migrateToLatest(db, postgresTypes);
  return db;
}
