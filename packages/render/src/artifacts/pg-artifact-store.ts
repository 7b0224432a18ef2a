import type { Readable } from 'node:stream';
import type pg from 'pg';
import { randomToken } from '@havn/shared';
import { ARTIFACT_ID, type ArtifactBytes } from './artifact-bytes.js';
import { decodeCursor, encodeCursor } from './artifact-cursor.js';
import {
  ArtifactQueryError,
  describeArtifact,
  type ArtifactDescriptor,
  type ArtifactInput,
  type ArtifactQuery,
  type ArtifactStore,
} from './artifact-store.js';

// The artifact store of a cluster (docs/render.md#several-instances): descriptors in
// PostgreSQL, bytes in a shared directory or S3, so every instance answers for every artifact.
// A descriptor is written only after its bytes are complete: an artifact exists exactly when its
// row does. Expiry deletes rows first (each row is returned to exactly one instance, so every
// instance may run the sweeper at once), then the bytes those rows named.

/**
 * Bytes without a descriptor are removed only this long past the TTL: between its bytes and its
 * row a put takes a moment, and object stores round their timestamps down to the second.
 */
const ORPHAN_GRACE_MS = 10 * 60_000;

interface Row {
  id: string;
  content_type: string;
  bytes: string;
  created_at: Date;
  labels: Record<string, string>;
  session: string | null;
}

function describeRow(row: Row): ArtifactDescriptor {
  return {
    id: row.id,
    url: `/v1/artifacts/${row.id}`,
    bytes: Number(row.bytes),
    contentType: row.content_type,
    createdAt: row.created_at.toISOString(),
    labels: row.labels,
    ...(row.session !== null && { session: row.session }),
  };
}

export class PgArtifactStore implements ArtifactStore {
  readonly #pool: pg.Pool;
  readonly #bytes: ArtifactBytes;
  readonly #ttlMs: number;
  readonly #now: () => number;
  readonly #orphanGraceMs: number;

  constructor(options: {
    pool: pg.Pool;
    bytes: ArtifactBytes;
    ttlMs: number;
    now?: () => number;
    orphanGraceMs?: number | undefined;
  }) {
    this.#pool = options.pool;
    this.#bytes = options.bytes;
    this.#ttlMs = options.ttlMs;
    this.#now = options.now ?? Date.now;
    this.#orphanGraceMs = options.orphanGraceMs ?? ORPHAN_GRACE_MS;
  }

  /** Artifacts created at or before this instant are expired. */
  #oldestLive(): Date {
    return new Date(this.#now() - this.#ttlMs);
  }

  async put(input: ArtifactInput): Promise<ArtifactDescriptor> {
    const id = randomToken(16);
    const bytes = await this.#bytes.write(id, input.body, input.contentType);
    const descriptor = describeArtifact(id, input, bytes, this.#now());
    try {
      await this.#pool.query(
        `insert into render_artifacts (id, content_type, bytes, created_at, labels, session)
         values ($1, $2, $3, $4, $5, $6)`,
        [
          id,
          descriptor.contentType,
          bytes,
          descriptor.createdAt,
          JSON.stringify(descriptor.labels),
          input.session ?? null,
        ],
      );
    } catch (err) {
      await this.#bytes.remove([id]).catch(() => undefined);
      throw err;
    }
    return descriptor;
  }

  async describe(id: string): Promise<ArtifactDescriptor | undefined> {
    if (!ARTIFACT_ID.test(id)) return undefined;
    const { rows } = await this.#pool.query<Row>(
      'select * from render_artifacts where id = $1 and created_at > $2',
      [id, this.#oldestLive()],
    );
    return rows[0] && describeRow(rows[0]);
  }

  async get(id: string): Promise<{ descriptor: ArtifactDescriptor; stream: Readable } | undefined> {
    const descriptor = await this.describe(id);
    if (!descriptor) return undefined;
    const found = await this.#bytes.read(id);
    return found && { descriptor, stream: found.stream };
  }

  async list(query: ArtifactQuery): Promise<{ artifacts: ArtifactDescriptor[]; cursor?: string }> {
    const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
    if (query.cursor !== undefined && !after) {
      throw new ArtifactQueryError('cursor is not one this service gave out');
    }
    const params: unknown[] = [this.#oldestLive()];
    const where = ['created_at > $1'];
    const param = (value: unknown): string => {
      params.push(value);
      return `$${params.length}`;
    };
    if (query.session !== undefined) where.push(`session = ${param(query.session)}`);
    if (query.labels && Object.keys(query.labels).length > 0) {
      where.push(`labels @> ${param(JSON.stringify(query.labels))}::jsonb`);
    }
    if (after) {
      // Newest first, ties by id in code-unit order: the order the cursor was taken in.
      const at = param(after.createdAt);
      where.push(
        `(created_at < ${at} or (created_at = ${at} and id collate "C" < ${param(after.id)}))`,
      );
    }
    const { rows } = await this.#pool.query<Row>(
      `select * from render_artifacts where ${where.join(' and ')}
       order by created_at desc, id collate "C" desc limit ${param(query.limit + 1)}`,
      params,
    );
    const page = rows.slice(0, query.limit).map(describeRow);
    const last = page.at(-1);
    return rows.length > query.limit && last
      ? { artifacts: page, cursor: encodeCursor(last) }
      : { artifacts: page };
  }

  async expire(cutoff: Date): Promise<number> {
    const { rows } = await this.#pool.query<{ id: string }>(
      'delete from render_artifacts where created_at < $1 returning id',
      [cutoff],
    );
    await this.#bytes.remove(rows.map((r) => r.id));
    await this.#removeOrphans(new Date(cutoff.getTime() - this.#orphanGraceMs));
    return rows.length;
  }

  /** Bytes whose put never reached its descriptor (an instance killed in between). */
  async #removeOrphans(cutoff: Date): Promise<void> {
    let batch: string[] = [];
    const flush = async (): Promise<void> => {
      const { rows } = await this.#pool.query<{ id: string }>(
        'select id from render_artifacts where id = any($1)',
        [batch],
      );
      const described = new Set(rows.map((r) => r.id));
      await this.#bytes.remove(batch.filter((id) => !described.has(id)));
      batch = [];
    };
    for await (const id of this.#bytes.writtenBefore(cutoff)) {
      batch.push(id);
      if (batch.length >= 500) await flush();
    }
    if (batch.length > 0) await flush();
  }
}
