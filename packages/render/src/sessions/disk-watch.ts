import { lstat, opendir } from 'node:fs/promises';
import { join } from 'node:path';

// A session browser's disk bound (docs/sessions.md#disk): what its profile and home hold on disk
// (IndexedDB, the Cache API, the origin private file system, the HTTP cache, ...), read every few
// seconds. Chromium gives each origin a share of the whole disk, so without it one session token
// could fill the host's disk. Its downloads have bounds of their own and are not counted here.

/** Files and folders one walk reads at most: past it the browser counts as over its bound. */
const MAX_ENTRIES = 100_000;

export interface DiskUsage {
  /** Bytes the files take on disk (allocated blocks, so a sparse file counts what it holds). */
  bytes: number;
  entries: number;
}

/**
 * What `dirs` take on disk, walked without following links: an entry is read with lstat, and a
 * link is counted as itself. The browser may change the tree during the walk; an entry gone
 * meanwhile is skipped. Only sizes are read, never contents. Stops at `maxEntries`.
 */
export async function diskUsage(
  dirs: readonly string[],
  maxEntries = MAX_ENTRIES,
): Promise<DiskUsage> {
  const usage = { bytes: 0, entries: 0 };
  const pending = [...dirs];
  for (let dir = pending.pop(); dir !== undefined; dir = pending.pop()) {
    let listing;
    try {
      listing = await opendir(dir);
    } catch {
      continue;
    }
    for await (const entry of listing) {
      if (++usage.entries > maxEntries) return usage;
      const path = join(dir, entry.name);
      const stats = await lstat(path).catch(() => undefined);
      if (stats === undefined) continue;
      usage.bytes += stats.blocks * 512;
      if (stats.isDirectory()) pending.push(path);
    }
  }
  return usage;
}

/**
 * Reads one browser's folders every `everyMs` and tells once when they go over `maxBytes` or
 * MAX_ENTRIES, with what they held (`1073790976 bytes`, `more than 100000 files`).
 */
export class DiskWatch {
  private readonly timer: NodeJS.Timeout;
  private reading = false;
  /** Stopped, or over its bound and told: no walk starts, and none still running tells. */
  private done = false;

  constructor(
    dirs: readonly string[],
    maxBytes: number,
    overBound: (held: string) => void,
    everyMs = 2000,
  ) {
    this.timer = setInterval(() => {
      // A walk that takes longer than the period is not started twice.
      if (this.reading || this.done) return;
      this.reading = true;
      void diskUsage(dirs)
        .then((usage) => {
          if (this.done || (usage.bytes <= maxBytes && usage.entries <= MAX_ENTRIES)) return;
          this.stop();
          overBound(
            usage.entries > MAX_ENTRIES
              ? `more than ${String(MAX_ENTRIES)} files`
              : `${String(usage.bytes)} bytes`,
          );
        })
        .finally(() => {
          this.reading = false;
        });
    }, everyMs);
    this.timer.unref();
  }

  stop(): void {
    this.done = true;
    clearInterval(this.timer);
  }
}
