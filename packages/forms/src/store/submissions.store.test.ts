import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createIdGenerator } from '../ids.js';
import { submissionBuilder } from '../services/submission-builder.js';
import { createTestDatabase, dropTestDatabase } from '../../../../test-support/test-database.js';
import { openStore, type Store } from './store.js';

let dir: string;
let databaseUrl: string | undefined;
let store: Store;
const ids: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'havn-store-'));
  databaseUrl = await createTestDatabase();
  store = await openStore({ userDataDir: dir, databaseUrl }, submissionBuilder);
  const newId = createIdGenerator();
  // Concurrent writes share group commits; each resolves only once its row is stored.
  await Promise.all(
    Array.from({ length: 7 }, (_, i) => {
      const id = newId('sub');
      ids.push(id);
      return store.writer.write({
        submission: {
          id,
          orgSlug: 'acme',
          formId: 'contact',
          receivedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
          read: 0,
          spam: 0,
          preview: `p${String(i)}`,
          answers: JSON.stringify({ n: i }),
          submitFields: null,
          origin: null,
          referer: null,
          userAgent: null,
          ip: '127.0.0.1',
          body: Buffer.from(`{"n":${String(i)}}`),
          definitionVersion: null,
        },
        deliveries: [],
      });
    }),
  );
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
  await dropTestDatabase(databaseUrl);
});

test('the export reads every submission in order across pages', async () => {
  const seen: string[] = [];
  for await (const r of store.submissions.all('acme', 'contact', {}, 2)) seen.push(r.id);
  expect(seen).toEqual(ids);
  const exact: string[] = [];
  for await (const r of store.submissions.all('acme', 'contact', {}, 7)) exact.push(r.id);
  expect(exact).toEqual(ids);
});

test('feeds page backwards with `before`', async () => {
  const first = await store.submissions.feed({ org: 'acme', limit: 3, includeSpam: false });
  expect(first.map((s) => s.id)).toEqual(ids.slice(4).reverse());
  const next = await store.submissions.feed({
    org: 'acme',
    limit: 3,
    includeSpam: false,
    before: first.at(-1)!.id,
  });
  expect(next.map((s) => s.id)).toEqual(ids.slice(1, 4).reverse());
});

test('a row that cannot be stored fails alone; the writes committed beside it are stored', async () => {
  const row = (id: string) => ({
    submission: {
      id,
      orgSlug: 'other',
      formId: 'contact',
      receivedAt: '2026-02-01T00:00:00.000Z',
      read: 0,
      spam: 0,
      preview: id,
      answers: '{}',
      submitFields: null,
      origin: null,
      referer: null,
      userAgent: null,
      ip: '127.0.0.1',
      body: Buffer.from('{}'),
      definitionVersion: null,
    },
    deliveries: [],
  });
  // ids[0] is taken: its primary key refuses the row, in a group commit with two good ones.
  const results = await Promise.allSettled([
    store.writer.write(row('sub_good_1')),
    store.writer.write(row(ids[0]!)),
    store.writer.write(row('sub_good_2')),
  ]);
  expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  const stored = await store.submissions.feed({ org: 'other', limit: 10, includeSpam: true });
  expect(stored.map((s) => s.id).sort()).toEqual(['sub_good_1', 'sub_good_2']);
});
