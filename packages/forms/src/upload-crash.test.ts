import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { sweepOrphanFiles } from './services/uploads/orphan-files.js';
import { submissionBuilder } from './services/submission-builder.js';
import { DirFileBytes, keptFileName } from './store/file-bytes.js';
import { openStore } from './store/store.js';
import { startFormsChild } from './test-support/forms-child.js';
import { client } from './test-support/forms-server.js';
import { createTestDatabase, dropTestDatabase } from '../../../test-support/test-database.js';

// docs/forms.md#file-uploads: a SIGKILL during a burst of submissions with files loses no file of
// an acknowledged submission, and leaves no file that the orphan sweep does not remove.

const site = 'http://site.test';
const pdf = (n: number) =>
  Buffer.concat([Buffer.from(`%PDF-1.4\n% ${String(n)}\n`), Buffer.alloc(100 * 1024, 0x20)]);

test('SIGKILL during an upload burst: every acknowledged submission has its files, no orphan stays', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'havn-forms-upload-kill-'));
  const databaseUrl = await createTestDatabase();
  const child = await startFormsChild({
    USER_DATA_DIR: dir,
    INGEST_RATE_LIMIT_PER_MINUTE: '0',
    WEB_DIR: join(dir, 'none'),
    ...(databaseUrl === undefined ? {} : { DATABASE_URL: databaseUrl }),
  });
  try {
    const admin = client(child.url);
    await admin('POST', '/api/orgs', { slug: 'acme', name: 'Acme' });
    const put = await admin('PUT', '/api/orgs/acme/forms/apply', {
      allowedOrigins: [site],
      definition: {
        intro: { title: 'Apply' },
        questions: [{ logicalName: 'cv', type: 'file', label: 'CV', required: true }],
      },
    });
    expect(put.status, put.text).toBe(200);
    const acknowledged = new Map<string, string>(); // submission id → sha256 of its file
    let killed = false;
    // Read through a call: the loop's own test would narrow the variable to false in its body.
    const stopped = () => killed;
    const worker = async (w: number) => {
      for (let i = 0; !stopped(); i++) {
        const bytes = pdf(w * 100_000 + i);
        const body = new FormData();
        body.append('cv', new Blob([bytes]), `cv-${String(w)}-${String(i)}.pdf`);
        try {
          const res = await fetch(`${child.url}/api/orgs/acme/forms/apply/submissions`, {
            method: 'POST',
            headers: { origin: site, accept: 'application/json' },
            body,
          });
          if (res.status !== 200) throw new Error(`answered ${String(res.status)}`);
          const { id } = (await res.json()) as { id: string };
          acknowledged.set(id, createHash('sha256').update(bytes).digest('hex'));
        } catch (err) {
          if (stopped()) return; // the server is gone: an unanswered request was never acknowledged
          throw err;
        }
      }
    };
    const load = Array.from({ length: 8 }, (_, w) => worker(w));
    while (acknowledged.size < 60) await new Promise((r) => setTimeout(r, 10));
    killed = true;
    await child.kill('SIGKILL');
    await Promise.all(load);

    const store = await openStore({ userDataDir: dir, databaseUrl }, submissionBuilder);
    const files = new DirFileBytes(join(dir, 'uploads'));
    try {
      for (const [id, sha256] of acknowledged) {
        const record = await store.submissions.get('acme', 'apply', id);
        const [file] = (record?.answers.cv ?? []) as { id: string; sha256: string }[];
        expect(file?.sha256, id).toBe(sha256);
        const bytes = await readFile(join(dir, 'uploads', keptFileName(`${id}/${file?.id ?? ''}`)));
        expect(createHash('sha256').update(bytes).digest('hex')).toBe(sha256);
      }
      // Whatever the kill left half done goes in the sweep; every file left has its submission.
      await sweepOrphanFiles(files, store.submissions, new Date(Date.now() + 60_000));
      const owners = (await readdir(join(dir, 'uploads')))
        .filter((f) => f !== '.incoming')
        .map((f) => f.slice(0, f.indexOf('.')));
      const existing = await store.submissions.existing(owners);
      expect(owners.filter((f) => !existing.has(f))).toEqual([]);
      expect(await readdir(join(dir, 'uploads', '.incoming'))).toEqual([]);
      expect(acknowledged.size).toBeGreaterThanOrEqual(60);
    } finally {
      await store.close();
    }
  } finally {
    await child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    await dropTestDatabase(databaseUrl);
  }
});
