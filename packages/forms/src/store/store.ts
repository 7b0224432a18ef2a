import type { Kysely } from 'kysely';
import { openPostgresDatabase } from './postgres-database.js';
import { openSqliteDatabase, sqliteFile } from './sqlite-database.js';
import { FormStore } from './forms.store.js';
import { GroupCommitWriter, type GroupCommits, type SubmissionBuilder } from './group-commit.js';
import { createIdGenerator } from '../ids.js';
import { OrgStore } from './orgs.store.js';
import type { Outbox } from './outbox/outbox.js';
import { PostgresOutbox } from './outbox/postgres-outbox.js';
import { SqliteOutbox } from './outbox/sqlite-outbox.js';
import { PushStore } from './push.store.js';
import { RateLimitStore } from './rate-limits.store.js';
import { SettingsStore } from './settings.store.js';
import { SetupCodeStore } from './setup-codes.store.js';
import { ChallengeStore } from './challenges.store.js';
import type { Database } from './schema.js';
import { SubmissionStore } from './submissions.store.js';
import { WriterThread } from './writer-thread.js';

/** Where the data lives: SQLite in `userDataDir`, or the PostgreSQL database at `databaseUrl`. */
export interface StoreLocation {
  readonly userDataDir: string;
  /** A postgres:// URL; undefined for the embedded SQLite store. */
  readonly databaseUrl?: string | undefined;
}

/**
 * Everything the services need from storage. The parts are plain Kysely on either dialect; what
 * differs (the connection, the column types, the writer thread) is decided in `openStore`.
 */
export interface Store {
  readonly orgs: OrgStore;
  readonly forms: FormStore;
  readonly submissions: SubmissionStore;
  /** Every delivery: the outbox, its attempts, requeues and the delivery log. */
  readonly deliveries: Outbox;
  readonly push: PushStore;
  readonly writer: GroupCommitWriter;
  readonly settings: SettingsStore;
  readonly rateLimits: RateLimitStore;
  /** Proof-of-work challenges already used (docs/forms.md#spam). */
  readonly challenges: ChallengeStore;
  /** One-time setup codes (docs/forms.md#first-run-and-setup-links). */
  readonly setupCodes: SetupCodeStore;
  /**
   * Whether several instances may share this store (PostgreSQL): what they must agree on (the
   * VAPID keys, the rate limit) then lives in the database, not in the process or USER_DATA_DIR.
   */
  readonly shared: boolean;
  /** Called after each group commit (the delivery worker listens). */
  onCommitted(listener: () => void): void;
  close(): Promise<void>;
}

/** This process's name on a shared database: its delivery leases carry it. */
function instanceId(): string {
  return createIdGenerator()('inst');
}

function createStore(db: Kysely<Database>, build: SubmissionBuilder, commits: GroupCommits): Store {
  const listeners: (() => void)[] = [];
  const thread = 'thread' in commits ? commits.thread : undefined;
  const { outbox } = commits;
  const writer = new GroupCommitWriter(
    db,
    () => {
      for (const l of listeners) l();
    },
    build,
    commits,
  );
  return {
    orgs: new OrgStore(db),
    forms: new FormStore(db),
    submissions: new SubmissionStore(db, outbox),
    deliveries: outbox,
    push: new PushStore(db),
    writer,
    settings: new SettingsStore(db),
    rateLimits: new RateLimitStore(db),
    challenges: new ChallengeStore(db, thread),
    setupCodes: new SetupCodeStore(db),
    shared: thread === undefined,
    onCommitted: (listener) => listeners.push(listener),
    close: async () => {
      await writer.drained();
      await thread?.close();
      await db.destroy();
    },
  };
}

// PostgreSQL group commits in flight at once, each on its own pooled connection: while one waits
// for its WAL flush the next batch is already being sent.
const postgresCommitsInFlight = 4;

/**
 * Opens the store at `location` (a bare string is a USER_DATA_DIR for SQLite). SQLite commits on
 * the writer thread, which builds the ingest rows with the same rules as `build`; PostgreSQL
 * builds them with `build` on the event loop and group-commits on pooled connections.
 */
export async function openStore(
  location: StoreLocation | string,
  build: SubmissionBuilder,
): Promise<Store> {
  const { userDataDir, databaseUrl } =
    typeof location === 'string' ? { userDataDir: location, databaseUrl: undefined } : location;
  if (databaseUrl !== undefined) {
    const db = await openPostgresDatabase(databaseUrl);
    return createStore(db, build, {
      inFlight: postgresCommitsInFlight,
      outbox: new PostgresOutbox(db, instanceId()),
    });
  }
  const db = await openSqliteDatabase(userDataDir);
  const thread = new WriterThread(sqliteFile(userDataDir));
  return createStore(db, build, { thread, outbox: new SqliteOutbox(db, thread) });
}
