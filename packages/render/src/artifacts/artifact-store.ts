import type { Readable } from 'node:stream';

// The artifact store interface (docs/render.md#get-v1artifacts). One-shot renders and browser
// sessions both write through it; the filesystem implementation lives beside it. The store is a
// cache, not an archive: artifacts expire after ARTIFACT_TTL_MS.

/** Labels given at creation, stored on the artifact. */
export type Labels = Readonly<Record<string, string>>;

/** What renders, sessions and listings answer (docs/render.md#get-v1artifacts). */
export interface ArtifactDescriptor {
  id: string;
  /** `/v1/artifacts/<id>`. */
  url: string;
  bytes: number;
  contentType: string;
  /** ISO 8601 UTC with milliseconds. */
  createdAt: string;
  labels: Labels;
  /** The browser session that made it; absent for one-shot renders. */
  session?: string;
}

export interface ArtifactInput {
  contentType: string;
  labels: Labels;
  session?: string | undefined;
  /** The bytes, or a file that the store takes over (moved, not copied), e.g. a stitched video. */
  body: Buffer | { path: string };
}

/** The descriptor of a new artifact `id` of `bytes` bytes made from `input` at `now` (epoch ms). */
export function describeArtifact(
  id: string,
  input: ArtifactInput,
  bytes: number,
  now: number,
): ArtifactDescriptor {
  return {
    id,
    url: `/v1/artifacts/${id}`,
    bytes,
    contentType: input.contentType,
    createdAt: new Date(now).toISOString(),
    labels: { ...input.labels },
    ...(input.session !== undefined && { session: input.session }),
  };
}

export interface ArtifactQuery {
  session?: string | undefined;
  /** Every one of these labels, with these values. */
  labels?: Labels | undefined;
  limit: number;
  /** From a previous page's answer: where that page ended. */
  cursor?: string | undefined;
}

/** A listing query the store cannot answer (a cursor it never gave out). */
export class ArtifactQueryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ArtifactQueryError';
  }
}

export interface ArtifactStore {
  put(input: ArtifactInput): Promise<ArtifactDescriptor>;
  /** The descriptor, or undefined when absent or expired. */
  describe(id: string): Promise<ArtifactDescriptor | undefined>;
  /** The descriptor and a stream of the stored bytes, or undefined when absent or expired. */
  get(id: string): Promise<{ descriptor: ArtifactDescriptor; stream: Readable } | undefined>;
  /** Live artifacts matching `query`, newest first, and the cursor of the next page if any. */
  list(query: ArtifactQuery): Promise<{ artifacts: ArtifactDescriptor[]; cursor?: string }>;
  /** Removes artifacts created before `cutoff`; returns how many were removed. */
  expire(cutoff: Date): Promise<number>;
}

/**
 * A store over another that changes only how artifacts are put (a cap, a watch on write faults):
 * every read and every expiry goes to the store beneath.
 */
export abstract class ArtifactStoreOver implements ArtifactStore {
  constructor(protected readonly store: ArtifactStore) {}

  abstract put(input: ArtifactInput): Promise<ArtifactDescriptor>;

  describe(id: string) {
    return this.store.describe(id);
  }

  get(id: string) {
    return this.store.get(id);
  }

  list(query: ArtifactQuery) {
    return this.store.list(query);
  }

  expire(cutoff: Date) {
    return this.store.expire(cutoff);
  }
}
