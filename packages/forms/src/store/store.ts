import type { Kysely } from 'kysely';
import { openSqliteDatabase, sqliteFile } from './database.js';
import { DeliveryStore } from './deliveries.store.js';
import { FormStore } from './forms.store.js';
import { GroupCommitWriter, type SubmissionBuilder } from './group-commit.js';
import { OrgStore } from './orgs.store.js';
import { PushStore } from './push.store.js';
import type { Database } from './schema.js';
import { SubmissionStore } from './submissions.store.js';
import { WriterThread } from './writer-thread.js';

/**
 * Everything the services need from storage. The parts are plain Kysely, so a PostgreSQL backend
 * (DATABASE_URL, 0-decisions §2) only needs its own `open…Database`.
 */
export interface Store {
  readonly orgs: OrgStore;
  readonly forms: FormStore;
  readonly submissions: SubmissionStore;
  readonly deliveries: DeliveryStore;
  readonly push: PushStore;
  readonly writer: GroupCommitWriter;
  /** Called after each group commit (the delivery worker listens). */
  onCommitted(listener: () => void): void;
  close(): Promise<void>;
}

export function createStore(
  db: Kysely<Database>,
  build: SubmissionBuilder,
  thread?: WriterThread,
): Store {
  const listeners: (() => void)[] = [];
  const writer = new GroupCommitWriter(
    db,
    () => {
      for (const l of listeners) l();
    },
    build,
    thread,
  );
  return {
    orgs: new OrgStore(db),
    forms: new FormStore(db),
    submissions: new SubmissionStore(db),
    deliveries: new DeliveryStore(db, thread),
    push: new PushStore(db),
    writer,
    onCommitted: (listener) => listeners.push(listener),
    close: async () => {
      await writer.drained();
      await thread?.close();
      await db.destroy();
    },
  };
}

/**
 * The embedded store: SQLite in USER_DATA_DIR. Ingest rows are built by `build` (on the event loop
 * when there is no writer thread); the writer thread's entry builds them with the same rules.
 */
export async function openStore(userDataDir: string, build: SubmissionBuilder): Promise<Store> {
  const db = await openSqliteDatabase(userDataDir);
  return createStore(db, build, new WriterThread(sqliteFile(userDataDir)));
}
