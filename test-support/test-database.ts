import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The test cluster's maintenance database; only in the forms-postgres and render-cluster projects. */
    postgresUrl: string | undefined;
  }
}

/** The store the forms tests run against: the forms-postgres project provides a cluster. */
export function storeUnderTest(): 'sqlite' | 'postgres' {
  return inject('postgresUrl') === undefined ? 'sqlite' : 'postgres';
}

async function onMaintenance<T>(run: (client: pg.Client) => Promise<T>): Promise<T> {
  const url = inject('postgresUrl');
  if (url === undefined) throw new Error('no PostgreSQL cluster in this test project');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

/**
 * A new empty database for one server (or several sharing it), as its DATABASE_URL; undefined
 * when the tests run on SQLite (the data directory is the store then).
 */
export async function createTestDatabase(): Promise<string | undefined> {
  const url = inject('postgresUrl');
  if (url === undefined) return undefined;
  const name = `havn_${randomBytes(6).toString('hex')}`;
  await onMaintenance((c) => c.query(`create database ${name}`));
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** Drops a database `createTestDatabase` made, whatever is still connected to it. */
export async function dropTestDatabase(databaseUrl: string | undefined): Promise<void> {
  if (databaseUrl === undefined) return;
  const name = new URL(databaseUrl).pathname.slice(1);
  if (!/^havn_[0-9a-f]+$/.test(name)) throw new Error(`not a test database: ${name}`);
  await onMaintenance((c) => c.query(`drop database if exists ${name} with (force)`));
}
