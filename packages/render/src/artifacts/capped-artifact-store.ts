import {
  type ArtifactDescriptor,
  type ArtifactInput,
  type ArtifactStore,
  ArtifactStoreOver,
} from './artifact-store.js';

// ARTIFACT_MAX_BYTES over any store (docs/render.md#configuration): the store is a cache, so past
// its total the oldest artifacts expire first, as they would a little later by ARTIFACT_TTL_MS,
// and a new render or download is never refused for space. Each session's downloads are bounded
// on their own (SESSION_MAX_DOWNLOADS, SESSION_MAX_DOWNLOAD_BYTES), so no one session can push
// out the rest quickly. The total is kept as an upper bound (the sweeper only lowers it) and
// counted from the store itself only when the bound passes the cap; trimming goes to 90% of it,
// so that happens once in a while, not on every put.

const PAGE = 500;

export class CappedArtifactStore extends ArtifactStoreOver {
  /** At least the bytes the store holds (an upper bound); undefined until first counted. */
  private total: number | undefined;
  private trimming: Promise<void> | undefined;

  constructor(
    store: ArtifactStore,
    private readonly maxBytes: number,
  ) {
    super(store);
  }

  async put(input: ArtifactInput): Promise<ArtifactDescriptor> {
    const descriptor = await this.store.put(input);
    this.total = (this.total ?? (await this.count())) + descriptor.bytes;
    if (this.total > this.maxBytes) {
      this.trimming ??= this.trim().finally(() => {
        this.trimming = undefined;
      });
      await this.trimming;
    }
    return descriptor;
  }

  private async all(): Promise<ArtifactDescriptor[]> {
    const found: ArtifactDescriptor[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.store.list({ limit: PAGE, ...(cursor && { cursor }) });
      found.push(...page.artifacts);
      cursor = page.cursor;
    } while (cursor);
    return found;
  }

  private async count(): Promise<number> {
    return (await this.all()).reduce((sum, a) => sum + a.bytes, 0);
  }

  /** Expires the oldest artifacts until the store is at 90% of its cap. */
  private async trim(): Promise<void> {
    const newestFirst = await this.all();
    let total = newestFirst.reduce((sum, a) => sum + a.bytes, 0);
    const goal = this.maxBytes * 0.9;
    let cutoff: string | undefined;
    // The newest (the one just stored) always stays.
    for (let i = newestFirst.length - 1; i >= 1 && total > goal; i--) {
      total -= newestFirst[i]?.bytes ?? 0;
      cutoff = newestFirst[i - 1]?.createdAt;
    }
    // Everything created before the oldest artifact kept goes; a cutoff is a time, so artifacts
    // of the same millisecond go or stay together.
    if (cutoff !== undefined) await this.store.expire(new Date(cutoff));
    this.total = await this.count();
  }
}
