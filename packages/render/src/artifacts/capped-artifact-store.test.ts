import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CappedArtifactStore } from './capped-artifact-store.js';
import { FsArtifactStore } from './fs-artifact-store.js';

// ARTIFACT_MAX_BYTES: past the store's total, the oldest artifacts expire first.

let dir: string;
let now: number;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'havn-capped-'));
  now = Date.parse('2026-01-01T00:00:00.000Z');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('CappedArtifactStore', () => {
  it('expires the oldest artifacts once the total passes the cap, never the newest', async () => {
    const inner = new FsArtifactStore({ dir, ttlMs: 3_600_000, now: () => now });
    await inner.init();
    const store = new CappedArtifactStore(inner, 10_000);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      now += 1000;
      ids.push(
        (await store.put({ contentType: 'text/plain', labels: {}, body: Buffer.alloc(3000) })).id,
      );
    }
    // 15 000 bytes put against 10 000: trimmed to 9 000 or less, the oldest first.
    const left = (await store.list({ limit: 50 })).artifacts.map((a) => a.id);
    expect(left).toEqual([ids[4], ids[3], ids[2]]);
    expect(await store.describe(ids[0]!)).toBeUndefined();
    // A restart counts what is there and goes on from it.
    const again = new CappedArtifactStore(inner, 10_000);
    now += 1000;
    const sixth = await again.put({
      contentType: 'text/plain',
      labels: {},
      body: Buffer.alloc(3000),
    });
    expect((await again.list({ limit: 50 })).artifacts.map((a) => a.id)).toEqual([
      sixth.id,
      ids[4],
      ids[3],
    ]);
  });
});
