import { randomUUID } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { Readable } from 'node:stream';
import type {
  ArtifactDescriptor,
  ArtifactInput,
  ArtifactStore,
} from '../../artifacts/artifact-store.js';

/** An in-memory ArtifactStore for session tests (the filesystem one belongs to render). */
export class MemoryArtifactStore implements ArtifactStore {
  readonly items = new Map<string, { descriptor: ArtifactDescriptor; bytes: Buffer }>();

  async put(input: ArtifactInput): Promise<ArtifactDescriptor> {
    let bytes: Buffer;
    if (Buffer.isBuffer(input.body)) {
      bytes = input.body;
    } else {
      bytes = await readFile(input.body.path);
      await rm(input.body.path);
    }
    const id = randomUUID();
    const descriptor: ArtifactDescriptor = {
      id,
      url: `/v1/artifacts/${id}`,
      bytes: bytes.length,
      contentType: input.contentType,
      createdAt: new Date().toISOString(),
      labels: { ...input.labels },
    };
    this.items.set(id, { descriptor, bytes });
    return descriptor;
  }

  describe(id: string): Promise<ArtifactDescriptor | undefined> {
    return Promise.resolve(this.items.get(id)?.descriptor);
  }

  get(id: string): Promise<{ descriptor: ArtifactDescriptor; stream: Readable } | undefined> {
    const item = this.items.get(id);
    return Promise.resolve(
      item && { descriptor: item.descriptor, stream: Readable.from([item.bytes]) },
    );
  }

  expire(cutoff: Date): Promise<number> {
    let removed = 0;
    for (const [id, item] of this.items) {
      if (new Date(item.descriptor.createdAt) < cutoff) {
        this.items.delete(id);
        removed++;
      }
    }
    return Promise.resolve(removed);
  }
}
