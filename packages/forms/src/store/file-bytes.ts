import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, rmdir, stat } from 'node:fs/promises';
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

/** Received files wait here; a leading dot keeps the folder apart from submission folders. */
const incomingDir = '.incoming';

async function syncPath(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Files kept in a local directory (or one every instance mounts). */
export class DirFileBytes implements FileBytes {
  constructor(private readonly dir: string) {}

  async init(): Promise<void> {
    await mkdir(join(this.dir, incomingDir), { recursive: true });
  }

  incomingPath(): string {
    return join(this.dir, incomingDir, randomToken(12));
  }

  #path(key: string): string {
    if (!FILE_KEY.test(key)) throw new Error('not a file key');
    return join(this.dir, key);
  }

  async keep(key: string, incoming: string): Promise<void> {
    const path = this.#path(key);
    const folder = join(path, '..');
    // The data, then the name: rename is atomic, and syncing both folders makes the new entries
    // survive a power cut as the file's bytes do.
    await syncPath(incoming);
    await mkdir(folder, { recursive: true });
    await rename(incoming, path);
    await syncPath(folder);
    await syncPath(this.dir);
  }

  async read(key: string): Promise<{ stream: Readable; bytes: number } | undefined> {
    if (!FILE_KEY.test(key)) return undefined;
    const file = await open(this.#path(key), 'r').catch(() => undefined);
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
    const folders = new Set<string>();
    for (const key of keys) {
      if (!FILE_KEY.test(key)) continue;
      await rm(this.#path(key), { force: true });
      folders.add(key.slice(0, key.indexOf('/')));
    }
    // A submission's folder goes with its last file (rmdir refuses one that is not empty).
    for (const folder of folders) {
      await rmdir(join(this.dir, folder)).catch(() => undefined);
    }
  }

  async *keptBefore(cutoff: Date): AsyncGenerator<string> {
    const incoming = join(this.dir, incomingDir);
    for (const name of await readdir(incoming).catch(() => [])) {
      const info = await stat(join(incoming, name)).catch(() => undefined);
      if (info && info.mtimeMs < cutoff.getTime()) await rm(join(incoming, name), { force: true });
    }
    for (const folder of await readdir(this.dir)) {
      if (!folder.startsWith('sub_')) continue;
      const names = await readdir(join(this.dir, folder)).catch(() => undefined);
      if (names?.length === 0) {
        // A crash between making the folder and moving its first file in: nothing to yield, and
        // the empty folder goes once it is as old as a kept file would have to be.
        const info = await stat(join(this.dir, folder)).catch(() => undefined);
        if (info && info.mtimeMs < cutoff.getTime()) {
          await rmdir(join(this.dir, folder)).catch(() => undefined);
        }
        continue;
      }
      for (const name of names ?? []) {
        const key = `${folder}/${name}`;
        if (!FILE_KEY.test(key)) continue;
        const info = await stat(join(this.dir, key)).catch(() => undefined);
        if (info && info.mtimeMs < cutoff.getTime()) yield key;
      }
    }
  }
}

/** Files kept in S3-compatible storage; received files wait in a local folder. */
export class S3FileBytes implements FileBytes {
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
