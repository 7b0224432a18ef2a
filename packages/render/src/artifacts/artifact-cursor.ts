import { ARTIFACT_ID } from './artifact-bytes.js';
import type { ArtifactDescriptor } from './artifact-store.js';

// A listing's cursor (docs/render.md#get-v1artifacts): the last artifact of a page, `createdAt`
// and id, so that a page never repeats or skips one. Every store orders newest first, ties by id
// in code-unit order, and reads the cursor the same way.

/** The cursor that continues after `a`. */
export function encodeCursor(a: ArtifactDescriptor): string {
  return Buffer.from(`${a.createdAt} ${a.id}`).toString('base64url');
}

/** The position a cursor names, or undefined for one the store never gave out. */
export function decodeCursor(cursor: string): { createdAt: string; id: string } | undefined {
  const [createdAt, id, extra] = Buffer.from(cursor, 'base64url').toString().split(' ');
  const valid =
    createdAt && id && extra === undefined && ARTIFACT_ID.test(id) && !isNaN(Date.parse(createdAt));
  return valid ? { createdAt, id } : undefined;
}
