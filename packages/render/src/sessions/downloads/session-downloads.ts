import { watch, type FSWatcher } from 'node:fs';
import { lstat, readdir, unlink } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { copyOwnedFile } from './owned-files.js';

// Files a session's pages download become artifacts of the session (docs/sessions.md#downloads).
// The door turns on Chromium's download events for every client that allows downloads and hands
// them here; downloads always land in the session's `downloads/` folder, named by their guid
// (`allowAndName`, what Playwright asks for) or by their suggested name (`allow`). A download that
// grows past DOWNLOAD_MAX_BYTES, or past the session's quotas (SESSION_MAX_DOWNLOADS,
// SESSION_MAX_DOWNLOAD_BYTES), is cancelled, and the session records why. The events are the
// browser's word; the folder itself is watched too, so a file that grows there without events
// (a behaviour set some other way) is deleted once it passes the bounds.

/** The events the door hands over; Chromium sends them to a client that allowed downloads. */
export const DOWNLOAD_EVENTS = ['Browser.downloadWillBegin', 'Browser.downloadProgress'] as const;

export interface DownloadsDeps {
  /** The session's `downloads/` folder (the browser's own). */
  dir: string;
  /** DOWNLOAD_MAX_BYTES: one file. */
  maxBytes: number;
  /** SESSION_MAX_DOWNLOADS: downloads begun, kept or in progress. */
  maxDownloads: number;
  /** SESSION_MAX_DOWNLOAD_BYTES: bytes kept and in progress together. */
  maxTotalBytes: number;
  /** The uid the browser runs under (a kept file must be its own), or undefined for ours. */
  browserUid: number | undefined;
  /** A folder of the service's own, outside the browser's reach, to copy kept files into. */
  workDir: string;
  /** Stores a finished download as an artifact of the session (the store takes the file over). */
  store(file: { path: string; filename: string; contentType: string }): Promise<void>;
  /** Asks the browser to stop a download. */
  cancel(guid: string): Promise<void>;
  /** Something the session's user should know about (shown in the session's `events`). */
  record(message: string): void;
}

interface DownloadEvent {
  method?: unknown;
  params?: {
    guid?: unknown;
    suggestedFilename?: unknown;
    receivedBytes?: unknown;
    totalBytes?: unknown;
    state?: unknown;
  };
}

// The media types a person is likely to download; anything else is application/octet-stream.
const TYPES: ReadonlyMap<string, string> = new Map([
  ['.pdf', 'application/pdf'],
  ['.csv', 'text/csv'],
  ['.txt', 'text/plain'],
  ['.json', 'application/json'],
  ['.zip', 'application/zip'],
  ['.png', 'image/png'],
  ['.jpg', 'image/jpeg'],
  ['.jpeg', 'image/jpeg'],
  ['.xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
]);

// How often the folder is looked at, at most, while Chromium writes to it.
const WATCH_INTERVAL_MS = 200;

export class SessionDownloads {
  /** guid → the file name the page suggested and the bytes received so far. */
  private readonly running = new Map<string, { filename: string; bytes: number }>();
  /** Every download dealt with, so events several clients receive count once. */
  private readonly done = new Set<string>();
  private begun = 0;
  private keptBytes = 0;
  private watcher: FSWatcher | undefined;
  private scan: NodeJS.Timeout | undefined;

  constructor(private readonly deps: DownloadsDeps) {}

  /** Watches the folder for files that pass the bounds without the browser's events. */
  watch(): void {
    try {
      this.watcher = watch(this.deps.dir, () => {
        this.scan ??= setTimeout(() => {
          void this.sweepFolder().finally(() => {
            this.scan = undefined;
          });
        }, WATCH_INTERVAL_MS);
      });
      this.watcher.on('error', () => undefined);
    } catch {
      // No inotify here: the events alone bound the downloads.
    }
  }

  close(): void {
    this.watcher?.close();
    clearTimeout(this.scan);
  }

  /** One of Chromium's `Browser.downloadWillBegin` / `Browser.downloadProgress` events. */
  note(text: string): void {
    let event: DownloadEvent;
    try {
      event = JSON.parse(text) as DownloadEvent;
    } catch {
      return;
    }
    const guid = event.params?.guid;
    if (typeof guid !== 'string' || this.done.has(guid)) return;
    const { suggestedFilename, receivedBytes, totalBytes, state } = event.params ?? {};
    if (event.method === 'Browser.downloadWillBegin') {
      if (this.running.has(guid)) return;
      const filename = typeof suggestedFilename === 'string' ? suggestedFilename : guid;
      this.running.set(guid, { filename, bytes: 0 });
      this.begun++;
      if (this.begun > this.deps.maxDownloads) {
        this.stop(
          guid,
          `download ${filename} cancelled: the session has had SESSION_MAX_DOWNLOADS (${this.deps.maxDownloads}) downloads`,
        );
      }
      return;
    }
    const running = this.running.get(guid);
    const filename = running?.filename ?? guid;
    const size = Math.max(Number(receivedBytes) || 0, Number(totalBytes) || 0);
    if (running) running.bytes = size;
    const over = state === 'inProgress' ? this.over(size, this.totalBytes()) : undefined;
    if (over) this.stop(guid, `download ${filename} cancelled: ${over}`);
    else if (state === 'completed') {
      this.finish(guid);
      void this.keep(guid, filename, size);
    } else if (state === 'canceled') {
      this.finish(guid);
    }
  }

  /** Which bound a file of `size`, with the session's downloads at `total`, is over. */
  private over(size: number, total: number): string | undefined {
    const { maxBytes, maxTotalBytes } = this.deps;
    if (size > maxBytes) return `it is over DOWNLOAD_MAX_BYTES (${maxBytes} bytes)`;
    if (total > maxTotalBytes) {
      return `the session's downloads are over SESSION_MAX_DOWNLOAD_BYTES (${maxTotalBytes} bytes)`;
    }
    return undefined;
  }

  private totalBytes(): number {
    let total = this.keptBytes;
    for (const { bytes } of this.running.values()) total += bytes;
    return total;
  }

  private finish(guid: string): void {
    this.done.add(guid);
    this.running.delete(guid);
  }

  private stop(guid: string, message: string): void {
    this.finish(guid);
    this.deps.record(message);
    void this.deps.cancel(guid).catch(() => undefined);
  }

  private async keep(guid: string, filename: string, reported: number): Promise<void> {
    // Counted at once, so that downloads finishing together cannot all slip under the quota.
    this.keptBytes += reported;
    for (const name of [guid, filename]) {
      // Never followed through a link, and only the browser's own regular file (owned-files.ts).
      const path = join(this.deps.dir, name);
      const copied = await copyOwnedFile(path, this.deps.workDir, {
        owner: this.deps.browserUid,
        maxBytes: this.deps.maxBytes,
      });
      if (copied === 'absent') continue;
      if (copied === 'too big') {
        this.deps.record(`download ${filename} not kept: it is over DOWNLOAD_MAX_BYTES`);
      } else if (copied === 'refused') {
        this.deps.record(`download ${filename} not kept: it is not a plain file of the browser's`);
      } else {
        // The name goes (unlink never follows a link), so the folder holds only what is running.
        await unlink(path).catch(() => undefined);
        this.keptBytes += copied.bytes - reported;
        const contentType =
          TYPES.get(extname(filename).toLowerCase()) ?? 'application/octet-stream';
        await this.deps.store({ path: copied.path, filename, contentType });
      }
      return;
    }
  }

  /** Deletes what grew past the bounds in the folder, whatever the events said. */
  private async sweepFolder(): Promise<void> {
    const names = await readdir(this.deps.dir).catch(() => [] as string[]);
    let total = this.keptBytes;
    for (const name of names) {
      const path = join(this.deps.dir, name);
      // lstat: a link is judged as itself, never followed.
      const found = await lstat(path).catch(() => undefined);
      if (!found?.isFile()) continue;
      total += found.size;
      const over = this.over(found.size, total);
      if (!over) continue;
      // unlink removes the name in the folder, never what a link points at.
      await unlink(path).catch(() => undefined);
      total -= found.size;
      // Chromium writes `<guid or name>.crdownload` until a download completes.
      const stem = name.replace(/\.crdownload$/, '');
      const guid = [...this.running].find(([id, { filename }]) => stem === id || stem === filename);
      if (guid) this.stop(guid[0], `download ${guid[1].filename} cancelled: ${over}`);
      else this.deps.record(`download ${name} deleted: ${over}`);
    }
  }
}
