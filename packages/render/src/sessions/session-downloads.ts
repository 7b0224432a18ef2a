import { stat } from 'node:fs/promises';
import { extname, join } from 'node:path';

// Files a session's pages download become artifacts of the session (docs/sessions.md#downloads).
// The door turns on Chromium's download events for every client that allows downloads and hands
// them here; downloads always land in the session's `downloads/` folder, named by their guid
// (`allowAndName`, what Playwright asks for) or by their suggested name (`allow`). A download that
// grows past DOWNLOAD_MAX_BYTES is cancelled, and the session records why.

/** The events the door hands over; Chromium sends them to a client that allowed downloads. */
export const DOWNLOAD_EVENTS = ['Browser.downloadWillBegin', 'Browser.downloadProgress'] as const;

export interface DownloadsDeps {
  /** The session's `downloads/` folder. */
  dir: string;
  maxBytes: number;
  /** Stores a finished download as an artifact of the session. */
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

export class SessionDownloads {
  /** guid → the file name the page suggested. */
  private readonly started = new Map<string, string>();
  /** Every download dealt with, so events several clients receive count once. */
  private readonly done = new Set<string>();

  constructor(private readonly deps: DownloadsDeps) {}

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
      this.started.set(guid, typeof suggestedFilename === 'string' ? suggestedFilename : guid);
      return;
    }
    const filename = this.started.get(guid) ?? guid;
    const size = Math.max(Number(receivedBytes) || 0, Number(totalBytes) || 0);
    if (state === 'inProgress' && size > this.deps.maxBytes) {
      this.done.add(guid);
      this.deps.record(
        `download ${filename} cancelled: it is over DOWNLOAD_MAX_BYTES (${this.deps.maxBytes} bytes)`,
      );
      void this.deps.cancel(guid).catch(() => undefined);
    } else if (state === 'completed') {
      this.done.add(guid);
      void this.keep(guid, filename);
    } else if (state === 'canceled') {
      this.done.add(guid);
    }
  }

  private async keep(guid: string, filename: string): Promise<void> {
    for (const name of [guid, filename]) {
      const path = join(this.deps.dir, name);
      const found = await stat(path).catch(() => undefined);
      if (!found?.isFile()) continue;
      if (found.size > this.deps.maxBytes) {
        this.deps.record(`download ${filename} not kept: it is over DOWNLOAD_MAX_BYTES`);
        return;
      }
      const contentType = TYPES.get(extname(filename).toLowerCase()) ?? 'application/octet-stream';
      await this.deps.store({ path, filename, contentType });
      return;
    }
  }
}
