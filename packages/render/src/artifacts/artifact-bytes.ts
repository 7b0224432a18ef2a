import { createReadStream } from 'node:fs';
import { copyFile, mkdir, open, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { randomToken } from '@havn/shared';
import type { S3ObjectStore } from '@havn/shared/object-store';

// Where a cluster keeps artifact bytes (docs/render.md#several-instances): a directory
// every instance mounts, or S3-compatible object storage. Either way an artifact's bytes become
// visible whole or not at all, and only then is its descriptor written to the database, so no
// instance ever streams half an artifact.

/** The bytes of a put: in memory, or a file the store takes over (a stitched video). */
export type ArtifactBody = Buffer | { path: string };

export interface ArtifactBytes {
  /** Stores the bytes under `id`, visible only once complete; resolves with their count. */
  write(id: string, body: ArtifactBody, contentType: string): Promise<number>;
  /** The bytes as a stream, or undefined when absent. */
  read(id: string): Promise<{ stream: Readable; bytes: number } | undefined>;
  remove(ids: readonly string[]): Promise<void>;
  /**
   * Ids whose bytes were written before `cutoff`, for the sweeper to match against the
   * descriptors; leftovers of writes that never completed are removed on the way.
   */
  writtenBefore(cutoff: Date): AsyncGenerator<string>;
}

/** Ids are 16 random bytes, base64url: anything else is absent, never a path or a key. */
export const ARTIFACT_ID = /^[A-Za-z0-9_-]{22}$/;

/** A directory shared by every instance (NFS, a Kubernetes ReadWriteMany volume). */
export class DirArtifactBytes implements ArtifactBytes {
  constructor(private readonly dir: string) {}

  async init(): Promise<void> {
    await mkdir(this.dir, { recursive: true });
  }

  #path(id: string): string {
    return join(this.dir, `${id}.bin`);
  }

  async write(id: string, body: ArtifactBody): Promise<number> {
    // Written under a temporary name and renamed: rename within one directory is atomic, on NFS
    // too, so a reader on any instance finds the whole file or none.
    const tmp = join(this.dir, `.${id}.${randomToken(6)}.tmp`);
    try {
      if (Buffer.isBuffer(body)) await writeFile(tmp, body);
      else await moveFile(body.path, tmp);
      const { size } = await stat(tmp);
      await rename(tmp, this.#path(id));
      return size;
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
  }

  async read(id: string): Promise<{ stream: Readable; bytes: number } | undefined> {
    // Opened before answering, so a file swept a moment ago reads as absent rather than a 500.
    const file = await open(this.#path(id), 'r').catch(() => undefined);
    if (!file) return undefined;
    try {
      const { size } = await file.stat();
      return { stream: file.createReadStream(), bytes: size };
    } catch (err) {
      await file.close();
      throw err;
    }
  }

  async remove(ids: readonly string[]): Promise<void> {
    await Promise.all(ids.map((id) => rm(this.#path(id), { force: true })));
  }

  async *writtenBefore(cutoff: Date): AsyncGenerator<string> {
    for (const name of await readdir(this.dir)) {
      const path = join(this.dir, name);
      const info = await stat(path).catch(() => undefined);
      if (!info || info.mtimeMs >= cutoff.getTime()) continue;
      if (name.endsWith('.tmp')) await rm(path, { force: true });
      else if (name.endsWith('.bin') && ARTIFACT_ID.test(name.slice(0, -4)))
        yield name.slice(0, -4);
    }
  }
}

/** S3-compatible object storage (`ARTIFACT_STORE=s3://bucket/prefix`); one object per artifact. */
export class S3ArtifactBytes implements ArtifactBytes {
  constructor(private readonly objects: S3ObjectStore) {}

  async write(id: string, body: ArtifactBody, contentType: string): Promise<number> {
    if (Buffer.isBuffer(body)) {
      await this.objects.put(id, body, { contentType, bytes: body.length });
      return body.length;
    }
    const { size } = await stat(body.path);
    await this.objects.put(id, createReadStream(body.path), { contentType, bytes: size });
    await rm(body.path, { force: true });
    return size;
  }

  read(id: string): Promise<{ stream: Readable; bytes: number } | undefined> {
    return this.objects.get(id);
  }

  remove(ids: readonly string[]): Promise<void> {
    return this.objects.delete(ids);
  }

  async *writtenBefore(cutoff: Date): AsyncGenerator<string> {
    // An upload S3 never completed leaves no object: there are no leftovers to clear.
    for await (const object of this.objects.list()) {
      if (object.lastModified < cutoff && ARTIFACT_ID.test(object.name)) yield object.name;
    }
  }
}

/** rename, or copy and remove when the file is on another device. */
export async function moveFile(from: string, to: string): Promise<void> {
  try {
    await rename(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    await copyFile(from, to);
    await rm(from, { force: true });
  }
}
