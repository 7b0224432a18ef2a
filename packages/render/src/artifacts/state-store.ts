import { mkdir, open, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type pg from 'pg';
import { randomToken } from '@havn/shared';
import type { Labels } from './artifact-store.js';

// Where saved browser states are kept (docs/sessions.md#log-in-once-render-many-times): beside the
// artifacts, so that every instance of a cluster finds every state. One process keeps each in
// ARTIFACT_DIR/states/<name>.state; a cluster keeps them in its PostgreSQL database. Unlike
// artifacts they do not expire: a state lives until it is deleted or saved over. The store holds
// sealed bytes only; it never sees a key or a cookie.

/** A state's name: what `POST /v1/sessions/<id>/state` takes and every route answers 400 for. */
export const STATE_NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;

/** What listing and saving answer; the contents themselves never leave the service. */
export interface StateDescriptor {
  name: string;
  /** Every origin whose localStorage or IndexedDB the state holds. */
  origins: string[];
  /** How many cookies it holds. */
  cookies: number;
  /** The size of its contents (the storage state's JSON), before sealing. */
  bytes: number;
  /** ISO 8601 UTC with milliseconds. */
  createdAt: string;
  labels: Labels;
}

export interface StateStore {
  /** Stores `sealed` under `name`, replacing what was there, visible whole or not at all. */
  put(name: string, sealed: Buffer, descriptor: StateDescriptor): Promise<void>;
  get(name: string): Promise<Buffer | undefined>;
  /** Every state's descriptor, by name. */
  list(): Promise<StateDescriptor[]>;
  /** False when there was no such state. */
  remove(name: string): Promise<boolean>;
}

/** ARTIFACT_DIR/states: one file a state; the folder is made by the first save. */
export class FsStateStore implements StateStore {
  constructor(
    private readonly dir: string,
    /** Reads a listing's descriptor from the front of a sealed file (state-seal.ts). */
    private readonly describe: (front: Buffer) => StateDescriptor | undefined,
  ) {}

  #path(name: string): string {
    if (!STATE_NAME.test(name)) throw new Error(`not a state name: ${JSON.stringify(name)}`);
    return join(this.dir, `${name}.state`);
  }

  async put(name: string, sealed: Buffer): Promise<void> {
    const path = this.#path(name);
    // Written aside and renamed over: a reader (another instance on a shared folder too) finds
    // the old state or the new one, never half of either.
    const tmp = join(this.dir, `.${name}.${randomToken(6)}.tmp`);
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    try {
      await writeFile(tmp, sealed, { mode: 0o600 });
      await rename(tmp, path);
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
  }

  async get(name: string): Promise<Buffer | undefined> {
    return readFile(this.#path(name)).catch((err: unknown) => {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    });
  }

  async list(): Promise<StateDescriptor[]> {
    const names = (await readdir(this.dir).catch(noFolder))
      .filter((n) => n.endsWith('.state') && STATE_NAME.test(n.slice(0, -6)))
      .sort();
    const found = await Promise.all(names.map((n) => this.#front(join(this.dir, n))));
    return found.filter((d): d is StateDescriptor => d !== undefined);
  }

  async remove(name: string): Promise<boolean> {
    try {
      await rm(this.#path(name));
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw err;
    }
  }

  /** The descriptor in front of a file, reading no more than its front. */
  async #front(path: string): Promise<StateDescriptor | undefined> {
    const file = await open(path, 'r').catch(() => undefined);
    if (!file) return undefined;
    try {
      const buffer = Buffer.alloc(64 * 1024);
      const { bytesRead } = await file.read(buffer, 0, buffer.length, 0);
      const front = buffer.subarray(0, bytesRead);
      return this.describe(front) ?? this.describe(await readFile(path));
    } finally {
      await file.close();
    }
  }
}

/** No entries where the folder is not there yet (no state was ever saved). */
function noFolder(err: unknown): string[] {
  if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
  throw err;
}

interface Row {
  descriptor: StateDescriptor;
  sealed: Buffer;
}

/** A cluster's states: one row each in render_states (cluster/database.ts). */
export class PgStateStore implements StateStore {
  constructor(private readonly pool: pg.Pool) {}

  async put(name: string, sealed: Buffer, descriptor: StateDescriptor): Promise<void> {
    await this.pool.query(
      `insert into render_states (name, descriptor, sealed) values ($1, $2, $3)
       on conflict (name) do update set descriptor = excluded.descriptor, sealed = excluded.sealed`,
      [name, JSON.stringify(descriptor), sealed],
    );
  }

  async get(name: string): Promise<Buffer | undefined> {
    const { rows } = await this.pool.query<Row>(
      'select sealed from render_states where name = $1',
      [name],
    );
    return rows[0]?.sealed;
  }

  async list(): Promise<StateDescriptor[]> {
    const { rows } = await this.pool.query<Row>(
      'select descriptor from render_states order by name collate "C"',
    );
    return rows.map((r) => r.descriptor);
  }

  async remove(name: string): Promise<boolean> {
    const { rowCount } = await this.pool.query('delete from render_states where name = $1', [name]);
    return (rowCount ?? 0) > 0;
  }
}
