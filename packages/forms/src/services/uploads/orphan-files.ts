import type { FileBytes } from '../../store/file-bytes.js';
import type { SubmissionStore } from '../../store/submissions.store.js';

/** How old a file no submission names must be before it is removed (its commit is long done). */
export const ORPHAN_GRACE_MS = 3_600_000;

/**
 * docs/forms.md#file-uploads: removes files kept before `cutoff` that no submission names (a
 * crash between keeping them and the commit, or between an erasure's commit and removing them),
 * and received files that were never kept. The number of files removed.
 */
export async function sweepOrphanFiles(
  files: FileBytes,
  submissions: Pick<SubmissionStore, 'existing'>,
  cutoff: Date,
): Promise<number> {
  let removed = 0;
  let batch: string[] = [];
  const settle = async () => {
    const existing = await submissions.existing([
      ...new Set(batch.map((k) => k.slice(0, k.indexOf('/')))),
    ]);
    const orphans = batch.filter((k) => !existing.has(k.slice(0, k.indexOf('/'))));
    await files.remove(orphans);
    removed += orphans.length;
    batch = [];
  };
  for await (const key of files.keptBefore(cutoff)) {
    batch.push(key);
    if (batch.length >= 500) await settle();
  }
  if (batch.length > 0) await settle();
  return removed;
}
