import { mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { text } from 'node:stream/consumers';
import { createLogger } from '@havn/shared';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startArtifactSweeper } from './artifact-sweeper.js';
import { FsArtifactStore } from './fs-artifact-store.js';

// The filesystem store: survives a restart, expires at ARTIFACT_TTL_MS.

let dir: string;
let now: number;
const clock = () => now;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'havn-store-'));
  now = Date.parse('2026-01-01T00:00:00.000Z');
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function open(ttlMs = 60_000) {
  const store = new FsArtifactStore({ dir, ttlMs, now: clock });
  await store.init();
  return store;
}

describe('FsArtifactStore', () => {
  it('stores bytes with a descriptor and streams them back after a restart', async () => {
    const first = await open();
    const d = await first.put({
      contentType: 'image/png',
      labels: { a: 'b' },
      body: Buffer.from('hello'),
    });
    expect(d).toEqual({
      id: d.id,
      url: `/v1/artifacts/${d.id}`,
      bytes: 5,
      contentType: 'image/png',
      createdAt: '2026-01-01T00:00:00.000Z',
      labels: { a: 'b' },
    });
    const restarted = await open();
    expect(await restarted.describe(d.id)).toEqual(d);
    const got = await restarted.get(d.id);
    expect(got?.descriptor).toEqual(d);
    expect(await text(got!.stream)).toBe('hello');
  });

  it('takes over a file by moving it', async () => {
    const store = await open();
    const file = join(dir, 'video.mp4.part');
    await writeFile(file, 'mp4 bytes');
    const d = await store.put({ contentType: 'video/mp4', labels: {}, body: { path: file } });
    expect(d.bytes).toBe(9);
    expect(await readdir(dir)).not.toContain('video.mp4.part');
    expect(await text((await store.get(d.id))!.stream)).toBe('mp4 bytes');
  });

  it('lists by session and labels, newest first, a page at a time with a cursor', async () => {
    const store = await open();
    const made = [];
    for (let i = 0; i < 7; i++) {
      made.push(
        await store.put({
          contentType: 'image/png',
          labels: { run: i % 2 === 0 ? 'even' : 'odd', label: `shot-${i}` },
          ...(i < 5 && { session: 'S1' }),
          body: Buffer.from([i]),
        }),
      );
      // Two artifacts in the same millisecond are ordered by id, and pages still neither
      // repeat nor skip them.
      if (i % 2 === 1) now += 1;
    }
    const pages: string[][] = [];
    let cursor: string | undefined;
    do {
      const page = await store.list({ session: 'S1', limit: 2, cursor });
      pages.push(page.artifacts.map((a) => a.id));
      cursor = page.cursor;
    } while (cursor !== undefined);
    const expected = made
      .slice(0, 5)
      .sort((a, b) =>
        a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1,
      )
      .map((a) => a.id);
    expect(pages.flat()).toEqual(expected);
    expect(pages.map((p) => p.length)).toEqual([2, 2, 1]);
    const even = await store.list({ labels: { run: 'even' }, limit: 50 });
    expect(even.artifacts.map((a) => a.labels['label'])).toEqual([
      'shot-6',
      'shot-4',
      'shot-2',
      'shot-0',
    ]);
    expect(even.cursor).toBeUndefined();
    expect(made[0]!.session).toBe('S1');
    expect(made[6]).not.toHaveProperty('session');
    await expect(store.list({ limit: 5, cursor: 'not-a-cursor' })).rejects.toThrow(
      /cursor is not one this service gave out/,
    );
  });

  it('treats unknown, malformed and path-like ids as absent', async () => {
    const store = await open();
    for (const id of ['AAAAAAAAAAAAAAAAAAAAAA', '../../etc/passwd', '', 'x'.repeat(500)]) {
      expect(await store.get(id)).toBeUndefined();
      expect(await store.describe(id)).toBeUndefined();
    }
  });

  it('hides artifacts past the TTL and the sweeper removes them', async () => {
    const store = await open(1000);
    const old = await store.put({
      contentType: 'text/plain',
      labels: {},
      body: Buffer.from('old'),
    });
    now += 600;
    const young = await store.put({
      contentType: 'text/plain',
      labels: {},
      body: Buffer.from('young'),
    });
    now += 500; // old is 1100 ms old, young 500 ms
    expect(await store.get(old.id)).toBeUndefined();
    expect(await store.describe(young.id)).toEqual(young);
    const sweeper = startArtifactSweeper({
      store,
      ttlMs: 1000,
      log: createLogger({ name: 'test', level: 'silent' }),
      now: clock,
    });
    try {
      expect(await sweeper.sweep()).toBe(1);
    } finally {
      sweeper.stop();
    }
    const left = (await readdir(dir)).sort();
    expect(left).toEqual([`${young.id}.bin`, `${young.id}.json`]);
  });

  it('sweeps the leftovers of a write that never finished', async () => {
    const store = await open(1000);
    const kept = await store.put({ contentType: 'text/plain', labels: {}, body: Buffer.from('k') });
    const stale = new Date(now - 5000);
    for (const name of ['AAAAAAAAAAAAAAAAAAAAAA.bin', '.AAAAAAAAAAAAAAAAAAAAAA.json.tmp']) {
      await writeFile(join(dir, name), 'partial');
      await utimes(join(dir, name), stale, stale);
    }
    expect(await store.expire(new Date(now - 1000))).toBe(0);
    expect((await readdir(dir)).sort()).toEqual([`${kept.id}.bin`, `${kept.id}.json`]);
  });
});
