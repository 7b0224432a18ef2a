import pg from 'pg';

// The database a cluster of render instances shares (docs/render.md#several-instances):
// artifact descriptors, saved browser states, the session registry and the instances' heartbeats. The schema is created
// at start, under an advisory lock so that instances starting together do not race each other.

/** Arbitrary, fixed: the advisory lock key of render's schema changes. */
const SCHEMA_LOCK = 7_302_411;

const SCHEMA = `
create table if not exists render_artifacts (
  id text primary key,
  content_type text not null,
  bytes bigint not null,
  created_at timestamptz not null,
  labels jsonb not null,
  session text
);
create index if not exists render_artifacts_newest on render_artifacts (created_at desc, id collate "C" desc);
create index if not exists render_artifacts_session on render_artifacts (session) where session is not null;

create table if not exists render_instances (
  id text primary key,
  name text not null,
  url text not null,
  heartbeat_ms integer not null,
  heartbeat_at timestamptz not null,
  draining boolean not null default false,
  sessions integer not null default 0,
  max_sessions integer not null,
  renders_in_flight integer not null default 0,
  renders_queued integer not null default 0
);

create table if not exists render_sessions (
  id text primary key,
  owner text not null,
  token_hash text not null unique,
  expires_at timestamptz not null,
  descriptor jsonb not null,
  registered_at timestamptz not null default now()
);
create index if not exists render_sessions_owner on render_sessions (owner);

create table if not exists render_states (
  name text primary key,
  descriptor jsonb not null,
  sealed bytea not null
);
`;

/** A pool on DATABASE_URL with render's tables in place. */
export async function openClusterDatabase(url: string): Promise<pg.Pool> {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  // An idle client that loses its connection must not take the process down.
  pool.on('error', () => undefined);
  const client = await pool.connect();
  try {
    await client.query('select pg_advisory_lock($1)', [SCHEMA_LOCK]);
    await client.query(SCHEMA);
  } finally {
    await client.query('select pg_advisory_unlock($1)', [SCHEMA_LOCK]).catch(() => undefined);
    client.release();
  }
  return pool;
}
