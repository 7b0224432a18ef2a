import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { randomToken } from '@havn/shared';
import type { S3ObjectStore } from '@havn/shared/object-store';

// Where uploaded files' bytes live (docs/forms.md#file-uploads): a directory, or S3-compatible
// storage (UPLOAD_STORE=s3://…, the S3 client render's artifacts use). An upload arrives in a
// temporary file on the local disk first; `keep` makes it durable under its key before the
// submission that names it is committed, so an acknowledged submission never lacks its files.
// A key is `<submission id>/<file id>`, both ids this server made: never a name a client chose.

/** `<submission id>/<file id>`: anything else is absent, never a path or an object key. */
export const FILE_KEY = /^sub_[0-9a-z]{26}\/fil_[0-9a-z]{26}$/;

export interface FileBytes {
  /** A fresh path on the local disk to receive an upload into. */
  incomingPath(): string;
  /**
   * Whether a received file is synced as it is closed (on the descriptor it was written with):
   * `keep` then only moves it, with no second open to sync it.
   */
  readonly syncsReceived: boolean;
  /** Makes the received file durable under `key` (and takes it over); resolves once synced. */
  keep(key: string, incoming: string, contentType: string, bytes: number): Promise<void>;
  /** The bytes as a stream, or undefined when absent. */
  read(key: string): Promise<{ stream: Readable; bytes: number } | undefined>;
  remove(keys: readonly string[]): Promise<void>;
  /**
   * Keys kept before `cutoff`, for the orphan sweep to match against the submissions; received
   * files never kept (a request that failed or a process killed) are removed on the way.
   */
  keptBefore(cutoff: Date): AsyncGenerator<string>;
}

/** Received files wait here; a leading dot keeps the folder apart from the kept files. */
const incomingDir = '.incoming';

async function syncPath(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * One fsync of a directory shared by every caller that asked while it could not yet cover them: a
 * call waits for a sync that starts after it, so the entries it made before calling are durable
 * when it resolves. Concurrent uploads then cost one directory sync together, not one each
 * (docs/benchmarks.md#submissions-with-a-file-2026-11-27).
 */
export class SharedSync {
  #running: Promise<void> | undefined;
  #next: Promise<void> | undefined;

  constructor(private readonly syncOnce: () => Promise<void>) {}

  sync(): Promise<void> {
    if (!this.#running) return this.#start();
    // The sync under way may have begun before the caller's change: wait for the next one.
    this.#next ??= this.#running
      .catch(() => undefined)
      .then(() => {
        this.#next = undefined;
        return this.#start();
      });
    return this.#next;
  }

  #start(): Promise<void> {
    const running: Promise<void> = this.syncOnce().finally(() => {
      if (this.#running === running) this.#running = undefined;
    });
    this.#running = running;
    return running;
  }
}

/**
 * The file a key is kept in: `<submission id>.<file id>`, all in one directory, so that keeping a
 * file makes one new entry in a directory whose sync it shares with the uploads beside it.
 */
export function keptFileName(key: string): string {
  if (!FILE_KEY.test(key)) throw new Error('not a file key');
  return key.replace('/', '.');
}

/** The key a kept file's name stands for, or undefined for any other name. */
function keyOfName(name: string): string | undefined {
  const key = name.replace('.', '/');
  return FILE_KEY.test(key) ? key : undefined;
}

/** Files kept in a local directory (or one every instance mounts). */
export class DirFileBytes implements FileBytes {
  readonly syncsReceived = true;
  readonly #dirSync: SharedSync;

  constructor(private readonly dir: string) {
    this.#dirSync = new SharedSync(() => syncPath(dir));
  }

  async init(): Promise<void> {
    await mkdir(join(this.dir, incomingDir), { recursive: true });
  }

  incomingPath(): string {
    return join(this.dir, incomingDir, randomToken(12));
  }

  async keep(key: string, incoming: string): Promise<void> {
    const path = join(this.dir, keptFileName(key));
    // The data (synced as it was received), then the name: rename is atomic, and the directory's
    // sync makes the new entry survive a power cut as the file's bytes do.
    await rename(incoming, path);
    await this.#dirSync.sync();
  }

  async read(key: string): Promise<{ stream: Readable; bytes: number } | undefined> {
    if (!FILE_KEY.test(key)) return undefined;
    const file = await open(join(this.dir, keptFileName(key)), 'r').catch(() => undefined);
    if (!file) return undefined;
    try {
      const { size } = await file.stat();
      return { stream: file.createReadStream(), bytes: size };
    } catch (err) {
      await file.close();
      throw err;
    }
  }

  async remove(keys: readonly string[]): Promise<void> {
    for (const key of keys) {
      if (FILE_KEY.test(key)) await rm(join(this.dir, keptFileName(key)), { force: true });
    }
  }

  async *keptBefore(cutoff: Date): AsyncGenerator<string> {
    const incoming = join(this.dir, incomingDir);
    for (const name of await readdir(incoming).catch(() => [])) {
      const info = await stat(join(incoming, name)).catch(() => undefined);
      if (info && info.mtimeMs < cutoff.getTime()) await rm(join(incoming, name), { force: true });
    }
    for (const name of await readdir(this.dir)) {
      const key = keyOfName(name);
      if (key === undefined) continue;
      const info = await stat(join(this.dir, name)).catch(() => undefined);
      if (info && info.mtimeMs < cutoff.getTime()) yield key;
    }
  }
}

/** Files kept in S3-compatible storage; received files wait in a local folder. */
export class S3FileBytes implements FileBytes {
  // The bytes are copied to S3, which stores them durably: the local copy needs no sync.
  readonly syncsReceived = false;

  constructor(
    private readonly objects: S3ObjectStore,
    private readonly incomingFolder: string,
  ) {}

  async init(): Promise<void> {
    await mkdir(this.incomingFolder, { recursive: true });
  }

  incomingPath(): string {
    return join(this.incomingFolder, randomToken(12));
  }

  async keep(key: string, incoming: string, contentType: string, bytes: number): Promise<void> {
    if (!FILE_KEY.test(key)) throw new Error('not a file key');
    // S3 answers a PUT only once the object is stored durably.
    await this.objects.put(key, createReadStream(incoming), { contentType, bytes });
    await rm(incoming, { force: true });
  }

  read(key: string): Promise<{ stream: Readable; bytes: number } | undefined> {
    return FILE_KEY.test(key) ? this.objects.get(key) : Promise.resolve(undefined);
  }

  remove(keys: readonly string[]): Promise<void> {
    return this.objects.delete(keys.filter((k) => FILE_KEY.test(k)));
  }

  async *keptBefore(cutoff: Date): AsyncGenerator<string> {
    for (const name of await readdir(this.incomingFolder).catch(() => [])) {
      const path = join(this.incomingFolder, name);
      const info = await stat(path).catch(() => undefined);
      if (info && info.mtimeMs < cutoff.getTime()) await rm(path, { force: true });
    }
    for await (const object of this.objects.list()) {
      if (object.lastModified < cutoff && FILE_KEY.test(object.name)) yield object.name;
    }
  }
}
