import { mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buffer, text } from 'node:stream/consumers';
import type pg from 'pg';
import { S3ObjectStore } from '@havn/shared/object-store';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, dropTestDatabase } from '../../../../test-support/test-database.js';
import { openClusterDatabase } from '../cluster/database.js';
import { startS3StandIn, type S3StandIn } from '../../../../test-support/s3-stand-in.js';
import { DirArtifactBytes, S3ArtifactBytes, type ArtifactBytes } from './artifact-bytes.js';
import type { ArtifactStore } from './artifact-store.js';
import { PgArtifactStore } from './pg-artifact-store.js';

// The cluster's artifact store: descriptors in a real PostgreSQL, bytes in a shared directory or
// in S3 (the s3rver stand-in, root test-support/, says why). Every case runs on both, and
// "two instances" are two stores with pools of their own on one database.

let s3: S3StandIn;
let databaseUrl: string | undefined;
const pools: pg.Pool[] = [];
let now: number;
const clock = () => now;

beforeAll(async () => {
  s3 = await startS3StandIn();
});
afterAll(async () => {
  await s3.close();
});

interface Backend {
  name: string;
  /** The bytes of one instance; instances of one test share the directory or the bucket. */
  bytes(): ArtifactBytes;
  /** Writes bytes with no descriptor, as a put killed between its two steps leaves them. */
  orphan(id: string): Promise<void>;
  /** Names of everything stored. */
  stored(): Promise<string[]>;
  cleanup(): Promise<void>;
}

const backends: { name: string; make: () => Promise<Backend> }[] = [
  {
    name: 'shared directory',
    make: async () => {
      const dir = await mkdtemp(join(tmpdir(), 'havn-shared-artifacts-'));
      await new DirArtifactBytes(dir).init();
      return {
        name: 'dir',
        bytes: () => new DirArtifactBytes(dir),
        orphan: async (id) => {
          const old = new Date(Date.now() - 3_600_000);
          for (const name of [`${id}.bin`, `.${id}.x.tmp`]) {
            await writeFile(join(dir, name), 'partial');
            await utimes(join(dir, name), old, old);
          }
        },
        stored: async () => (await readdir(dir)).sort(),
        cleanup: () => rm(dir, { recursive: true, force: true }),
      };
    },
  },
  {
    name: 'S3',
    make: () => {
      const prefix = `t${String(Math.random()).slice(2, 10)}/`;
      const objects = () =>
        new S3ObjectStore(
          { bucket: s3.bucket, prefix },
          {
            endpoint: s3.endpoint,
            region: 'us-east-1',
            credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
          },
        );
      return Promise.resolve({
        name: 's3',
        bytes: () => new S3ArtifactBytes(objects()),
        orphan: (id) =>
          objects().put(id, Buffer.from('partial'), { contentType: 'image/png', bytes: 7 }),
        stored: async () => {
          const names: string[] = [];
          for await (const o of objects().list()) names.push(o.name);
          return names.sort();
        },
        cleanup: () => Promise.resolve(),
      });
    },
  },
];

describe.each(backends)('PgArtifactStore on a $name', ({ make }) => {
  let backend: Backend;

  beforeEach(async () => {
    now = Date.parse('2026-01-01T00:00:00.000Z');
    databaseUrl = await createTestDatabase();
    backend = await make();
  });

  afterEach(async () => {
    await Promise.all(pools.splice(0).map((p) => p.end()));
    await dropTestDatabase(databaseUrl);
    await backend.cleanup();
  });

  /** One instance's store. */
  async function instance(ttlMs = 60_000, orphanGraceMs?: number): Promise<ArtifactStore> {
    const pool = await openClusterDatabase(databaseUrl!);
    pools.push(pool);
    const bytes = backend.bytes();
    return new PgArtifactStore({ pool, bytes, ttlMs, now: clock, orphanGraceMs });
  }

  it('answers for an artifact on every instance, bytes and descriptor alike', async () => {
    const [a, b] = [await instance(), await instance()];
    const d = await a.put({
      contentType: 'image/png',
      labels: { a: 'b' },
      session: 'S1',
      body: Buffer.from('hello'),
    });
    expect(d).toEqual({
      id: d.id,
      url: `/v1/artifacts/${d.id}`,
      bytes: 5,
      contentType: 'image/png',
      createdAt: '2026-01-01T00:00:00.000Z',
      labels: { a: 'b' },
      session: 'S1',
    });
    expect(await b.describe(d.id)).toEqual(d);
    const got = await b.get(d.id);
    expect(got?.descriptor).toEqual(d);
    expect(await text(got!.stream)).toBe('hello');
    expect((await b.list({ session: 'S1', limit: 10 })).artifacts).toEqual([d]);
  });

  it('takes over a file (a stitched video) and removes it', async () => {
    const store = await instance();
    const dir = await mkdtemp(join(tmpdir(), 'havn-video-'));
    const file = join(dir, 'video.mp4');
    await writeFile(file, 'mp4 bytes');
    const d = await store.put({ contentType: 'video/mp4', labels: {}, body: { path: file } });
    expect(d.bytes).toBe(9);
    expect(await readdir(dir)).toEqual([]);
    expect(await text((await store.get(d.id))!.stream)).toBe('mp4 bytes');
    await rm(dir, { recursive: true });
  });

  it('lists by session and labels, newest first, a page at a time with a cursor', async () => {
    const [a, b] = [await instance(), await instance()];
    const made = [];
    for (let i = 0; i < 7; i++) {
      made.push(
        await (i % 2 === 0 ? a : b).put({
          contentType: 'image/png',
          labels: { run: i % 2 === 0 ? 'even' : 'odd', label: `shot-${i}` },
          ...(i < 5 && { session: 'S1' }),
          body: Buffer.from([i]),
        }),
      );
      // Two artifacts in the same millisecond are ordered by id, and pages neither repeat nor
      // skip them.
      if (i % 2 === 1) now += 1;
    }
    const pages: string[][] = [];
    let cursor: string | undefined;
    do {
      const page = await b.list({ session: 'S1', limit: 2, cursor });
      pages.push(page.artifacts.map((x) => x.id));
      cursor = page.cursor;
    } while (cursor !== undefined);
    const expected = made
      .slice(0, 5)
      .sort((x, y) =>
        x.createdAt === y.createdAt ? (x.id < y.id ? 1 : -1) : x.createdAt < y.createdAt ? 1 : -1,
      )
      .map((x) => x.id);
    expect(pages.flat()).toEqual(expected);
    expect(pages.map((p) => p.length)).toEqual([2, 2, 1]);
    const even = await a.list({ labels: { run: 'even' }, limit: 50 });
    expect(even.artifacts.map((x) => x.labels['label'])).toEqual([
      'shot-6',
      'shot-4',
      'shot-2',
      'shot-0',
    ]);
    expect(even.cursor).toBeUndefined();
    await expect(a.list({ limit: 5, cursor: 'not-a-cursor' })).rejects.toThrow(
      /cursor is not one this service gave out/,
    );
  });

  it('treats unknown, malformed and path-like ids as absent', async () => {
    const store = await instance();
    for (const id of ['AAAAAAAAAAAAAAAAAAAAAA', '../../etc/passwd', '', 'x'.repeat(500)]) {
      expect(await store.get(id)).toBeUndefined();
      expect(await store.describe(id)).toBeUndefined();
    }
  });

  it('never shows an artifact before all its bytes are stored', async () => {
    const [writer, reader] = [await instance(), await instance()];
    const body = Buffer.alloc(16 * 1024 * 1024, 7);
    const upload = { done: false };
    const put = writer.put({ contentType: 'video/mp4', labels: { big: '1' }, body }).finally(() => {
      upload.done = true;
    });
    let seen = 0;
    // The other instance polls the listing while the upload runs; whatever it finds, it reads
    // whole.
    while (!upload.done || seen === 0) {
      for (const d of (await reader.list({ labels: { big: '1' }, limit: 5 })).artifacts) {
        const got = await reader.get(d.id);
        expect((await buffer(got!.stream)).length).toBe(body.length);
        seen++;
      }
    }
    expect((await put).bytes).toBe(body.length);
  });

  it('expires past the TTL; sweepers on every instance remove each artifact once', async () => {
    const stores = [await instance(1000), await instance(1000), await instance(1000)];
    const old = [];
    for (let i = 0; i < 6; i++) {
      old.push(
        await stores[i % 3]!.put({
          contentType: 'text/plain',
          labels: {},
          body: Buffer.from(`o${i}`),
        }),
      );
    }
    now += 600;
    const young = await stores[0]!.put({
      contentType: 'text/plain',
      labels: {},
      body: Buffer.from('young'),
    });
    now += 500; // the old ones are 1100 ms old, young 500 ms
    expect(await stores[1]!.get(old[0]!.id)).toBeUndefined();
    expect((await stores[2]!.list({ limit: 50 })).artifacts).toEqual([young]);
    const cutoff = new Date(now - 1000);
    const removed = await Promise.all(stores.map((s) => s.expire(cutoff)));
    expect(removed.reduce((x, y) => x + y, 0)).toBe(6);
    expect(await backend.stored()).toEqual([young.id + (backend.name === 'dir' ? '.bin' : '')]);
    expect(await text((await stores[2]!.get(young.id))!.stream)).toBe('young');
  });

  it('removes the bytes of a put that never reached its descriptor', async () => {
    // Object stores date objects by the real clock: this store's clock runs an hour ahead, so its
    // artifact outlives a sweep that sees the orphan as old (no grace period here).
    now = Date.now() + 3_600_000;
    const store = await instance(1000, 0);
    const kept = await store.put({ contentType: 'text/plain', labels: {}, body: Buffer.from('k') });
    await backend.orphan('AAAAAAAAAAAAAAAAAAAAAA');
    expect(await store.expire(new Date(Date.now() + 2000))).toBe(0);
    expect(await backend.stored()).toEqual([kept.id + (backend.name === 'dir' ? '.bin' : '')]);
    expect(await text((await store.get(kept.id))!.stream)).toBe('k');
  });
});
