// The SQLite data disk fills up under a running forms server (docs/operations.md#the-data-disk-is-full):
// USER_DATA_DIR on a small tmpfs of its own, filled to the last byte by a file beside the
// database, then freed. Mounting needs root, as the tests run in CI; a test that cannot mount
// fails with the reason.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { mountSmallDisk, type SmallDisk } from '../../../test-support/small-disk.js';
import { startFormsChild, type FormsChild } from './test-support/forms-child.js';
import { client, seedForm } from './test-support/forms-server.js';

const site = 'http://site.test';
const formPath = '/api/orgs/acme/forms/contact';

let disk: SmallDisk;
let dir: string;
let forms: FormsChild;

beforeAll(async () => {
  disk = mountSmallDisk('havn-forms-full-', '8m');
  dir = disk.dir;
  // SQLite (no DATABASE_URL), whatever store the rest of this project runs on: its file fills.
  const env = { USER_DATA_DIR: dir, INGEST_RATE_LIMIT_PER_MINUTE: '0' };
  forms = await startFormsChild(env);
  await seedForm(forms.url);
});

afterAll(async () => {
  await forms.kill('SIGKILL');
  disk.remove();
});

const submit = (name: string) =>
  client(forms.url, null)<{ id: string }>(
    'POST',
    `${formPath}/submissions`,
    { name, message: 'x'.repeat(2_000) },
    { origin: site },
  );

test('a full data disk: ingest answers 503 with Retry-After, reads go on, and it resumes once freed', async () => {
  const before: string[] = [];
  for (let i = 0; i < 20; i++) {
    const r = await submit(`before ${String(i)}`);
    expect(r.status).toBe(200);
    before.push(r.body.id);
  }
  const filler = join(dir, 'filler');
  disk.fill(filler);

  // Full: refused honestly, never a 200 without the durable write, never a 500.
  const refused: { status: number; retryAfter: string | null; error: unknown }[] = [];
  for (let i = 0; i < 30; i++) {
    const r = await submit(`full ${String(i)}`);
    if (r.status === 200) {
      // The database's own free pages may still take a few: they count as acknowledged.
      before.push(r.body.id);
      continue;
    }
    refused.push({ status: r.status, retryAfter: r.headers.get('retry-after'), error: r.body });
  }
  expect(refused.length).toBeGreaterThan(0);
  for (const r of refused) {
    expect(r).toMatchObject({
      status: 503,
      error: { error: 'the data disk is full; try again later' },
    });
    expect(Number(r.retryAfter)).toBeGreaterThan(0);
  }
  // Reads keep working.
  const feed = await client(forms.url)<{ submissions: { id: string }[] }>(
    'GET',
    `${formPath}/submissions?limit=500`,
  );
  expect(feed.status).toBe(200);
  expect((await client(forms.url)('GET', '/api/health')).status).toBe(200);

  // Freed: ingest resumes without a restart, and nothing acknowledged is missing.
  rmSync(filler);
  const after = await submit('after');
  expect(after.status).toBe(200);
  const stored = new Set(
    (
      await client(forms.url)<{ submissions: { id: string }[] }>(
        'GET',
        `${formPath}/submissions?limit=500`,
      )
    ).body.submissions.map((s) => s.id),
  );
  expect([...before, after.body.id].filter((id) => !stored.has(id))).toEqual([]);
  expect(forms.process.exitCode).toBeNull();
});
