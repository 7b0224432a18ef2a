import type pg from 'pg';
import type { RenderConfig } from '../config.js';
import { DirArtifactBytes, S3ArtifactBytes } from './artifact-bytes.js';
import type { ArtifactStore } from './artifact-store.js';
import { FsArtifactStore } from './fs-artifact-store.js';
import { PgArtifactStore } from './pg-artifact-store.js';

/**
 * The store the configuration asks for: one process keeps descriptors beside the bytes in
 * ARTIFACT_DIR (docs/render.md#get-v1artifacts); a cluster keeps them in PostgreSQL and the
 * bytes in a shared ARTIFACT_DIR or in S3 (docs/render.md#several-instances).
 */
export async function openArtifactStore(
  config: RenderConfig,
  pool: pg.Pool | undefined,
): Promise<{ store: ArtifactStore; close: () => void }> {
  const ttlMs = config.artifactTtlMs;
  if (!pool || !config.cluster) {
    const store = new FsArtifactStore({ dir: config.artifactDir, ttlMs });
    await store.init();
    return { store, close: () => undefined };
  }
  const { objectStore, s3 } = config.cluster;
  if (objectStore) {
    // Loaded only here: one process, or a cluster on a shared directory, never loads the AWS SDK.
    const { S3ObjectStore } = await import('@havn/shared/object-store');
    const objects = new S3ObjectStore(objectStore, s3);
    const store = new PgArtifactStore({ pool, bytes: new S3ArtifactBytes(objects), ttlMs });
    return {
      store,
      close: () => {
        objects.close();
      },
    };
  }
  const bytes = new DirArtifactBytes(config.artifactDir);
  await bytes.init();
  return { store: new PgArtifactStore({ pool, bytes, ttlMs }), close: () => undefined };
}
