import { createReadStream } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { randomToken } from '@havn/shared';
import { ARTIFACT_ID, moveFile } from './artifact-bytes.js';
import { decodeCursor, encodeCursor } from './artifact-cursor.js';
import {
  ArtifactQueryError,
  describeArtifact,
  type ArtifactDescriptor,
  type ArtifactInput,
  type ArtifactQuery,
  type ArtifactStore,
} from './artifact-store.js';

// The filesystem artifact store (docs/render.md#get-v1artifactsid): `<id>.bin` holds the bytes and
// `<id>.json` the descriptor, so that artifacts survive a restart. The descriptor is renamed into
// place only after the bytes are fully written, so a reader never sees a half-written artifact: an
// artifact exists exactly when its `.json` does. The sweeper also clears leftovers of interrupted
// writes.

export class FsArtifactStore implements ArtifactStore {
  readonly #dir: string;
  readonly #ttlMs: number;
  readonly #now: () => number;

  constructor(options: { dir: string; ttlMs: number; now?: () => number }) {
    this.#dir = options.dir;
    this.#ttlMs = options.ttlMs;
    this.#now = options.now ?? Date.now;
  }

  /** Creates the directory; call once before use. */
  async init(): Promise<void> {
    await mkdir(this.#dir, { recursive: true });
  }

  #paths(id: string) {
    return { bin: join(this.#dir, `${id}.bin`), json: join(this.#dir, `${id}.json`) };
  }

  async put(input: ArtifactInput): Promise<ArtifactDescriptor> {
    const id = randomToken(16);
    const { bin, json } = this.#paths(id);
    const jsonTmp = join(this.#dir, `.${id}.json.tmp`);
    const describe = (bytes: number) => describeArtifact(id, input, bytes, this.#now());
    try {
      let descriptor: ArtifactDescriptor;
      if (Buffer.isBuffer(input.body)) {
        // The bytes go straight to their final name (invisible until the descriptor exists), in
        // parallel with the descriptor's temporary file: two steps on the render's path, not four.
        descriptor = describe(input.body.length);
        const written = await Promise.allSettled([
          writeFile(bin, input.body),
          writeFile(jsonTmp, JSON.stringify(descriptor)),
        ]);
        const failed = written.find((w) => w.status === 'rejected');
        if (failed) throw failed.reason;
      } else {
        await moveFile(input.body.path, bin);
        descriptor = describe((await stat(bin)).size);
        await writeFile(jsonTmp, JSON.stringify(descriptor));
      }
      await rename(jsonTmp, json);
      return descriptor;
    } catch (err) {
      // A write that failed (a full disk, mostly) leaves nothing behind: the space goes back at
      // once rather than at the sweeper's next pass.
      await Promise.all([rm(bin, { force: true }), rm(jsonTmp, { force: true })]).catch(
        () => undefined,
      );
      throw err;
    }
  }

  async describe(id: string): Promise<ArtifactDescriptor | undefined> {
    if (!ARTIFACT_ID.test(id)) return undefined;
    let descriptor: ArtifactDescriptor;
    try {
      descriptor = JSON.parse(await readFile(this.#paths(id).json, 'utf8')) as ArtifactDescriptor;
    } catch {
      return undefined;
    }
    // Past ARTIFACT_TTL_MS an artifact is expired even before the sweeper runs.
    if (Date.parse(descriptor.createdAt) + this.#ttlMs <= this.#now()) return undefined;
    return descriptor;
  }

  async get(id: string) {
    const descriptor = await this.describe(id);
    if (!descriptor) return undefined;
    const stream = createReadStream(this.#paths(id).bin);
    // Open before answering, so a file swept a moment ago reads as absent rather than a 500.
    const opened = await new Promise<boolean>((resolve) => {
      stream.once('open', () => {
        resolve(true);
      });
      stream.once('error', () => {
        resolve(false);
      });
    });
    return opened ? { descriptor, stream } : undefined;
  }

  /**
   * Reads every descriptor: the store is a cache of at most ARTIFACT_TTL_MS of output, so a scan
   * is cheaper than an index to keep in step. Order: newest first, ties by id; the cursor is the
   * last artifact of a page (`createdAt` and id), so a page never repeats or skips one.
   */
  async list(query: ArtifactQuery): Promise<{ artifacts: ArtifactDescriptor[]; cursor?: string }> {
    const names = await readdir(this.#dir);
    const all = await Promise.all(
      names.filter((n) => n.endsWith('.json')).map((n) => this.describe(n.slice(0, -5))),
    );
    const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
    if (query.cursor !== undefined && !after) {
      throw new ArtifactQueryError('cursor is not one this service gave out');
    }
    const wanted = Object.entries(query.labels ?? {});
    const matching = all
      .filter((a): a is ArtifactDescriptor => a !== undefined)
      .filter((a) => query.session === undefined || a.session === query.session)
      .filter((a) => wanted.every(([key, value]) => a.labels[key] === value))
      .sort(newestFirst)
      .filter((a) => !after || newestFirst(after, a) < 0);
    const page = matching.slice(0, query.limit);
    const last = page.at(-1);
    return matching.length > query.limit && last
      ? { artifacts: page, cursor: encodeCursor(last) }
      : { artifacts: page };
  }

  async expire(cutoff: Date): Promise<number> {
    let removed = 0;
    const names = await readdir(this.#dir);
    const described = new Set(names.filter((n) => n.endsWith('.json')).map((n) => n.slice(0, -5)));
    for (const id of described) {
      const { bin, json } = this.#paths(id);
      let createdAt: number;
      try {
        createdAt = Date.parse(
          (JSON.parse(await readFile(json, 'utf8')) as ArtifactDescriptor).createdAt,
        );
      } catch {
        continue;
      }
      if (!(createdAt < cutoff.getTime())) continue;
      // Descriptor first: once it is gone the artifact is absent, whatever happens to the bytes.
      await rm(json, { force: true });
      await rm(bin, { force: true });
      removed++;
    }
    // Leftovers of a put that never finished (a crash between the bytes and the descriptor).
    for (const name of names) {
      const orphan =
        (name.endsWith('.bin') && !described.has(name.slice(0, -4))) || name.endsWith('.tmp');
      if (!orphan) continue;
      const path = join(this.#dir, name);
      const info = await stat(path).catch(() => undefined);
      if (info && info.mtimeMs < cutoff.getTime()) await rm(path, { force: true });
    }
    return removed;
  }
}

/** Newest first, ties by id; plain code-unit order, so the cursor compares the same way. */
function newestFirst(
  a: Pick<ArtifactDescriptor, 'createdAt' | 'id'>,
  b: Pick<ArtifactDescriptor, 'createdAt' | 'id'>,
): number {
  const [x, y] = a.createdAt === b.createdAt ? [a.id, b.id] : [a.createdAt, b.createdAt];
  return x < y ? 1 : x > y ? -1 : 0;
}
