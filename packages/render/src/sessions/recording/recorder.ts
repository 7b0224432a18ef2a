import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ArtifactDescriptor, ArtifactStore, Labels } from '../../artifacts/artifact-store.js';
import { stitchVideo, type RecordedFrame } from './video-stitcher.js';

// The server-side recorder of a session (docs/sessions.md#recording): it keeps screencast
// frames on disk with their capture times, at most `fps` a second and `maxFrames` in all, and on
// close stitches them into an mp4 whose timeline follows those times.

/** fps 1..30 (10), quality 1..100 (80), maxFrames 1..100000 (18000). */
export interface RecordOptions {
  fps: number;
  quality: number;
  maxFrames: number;
}

export const DEFAULT_RECORD: RecordOptions = { fps: 10, quality: 80, maxFrames: 18_000 };

export interface FrameSource {
  startScreencast(
    options: { quality: number },
    onFrame: (frame: { data: Buffer; timestamp: number }) => void,
  ): Promise<{ stop(): Promise<void> }>;
  /** A JPEG of the current page, for a recording whose page never changed while it ran. */
  still(quality: number): Promise<Buffer>;
}

export class Recorder {
  private readonly frames: RecordedFrame[] = [];
  /** A frame that came too soon after the last kept one; kept if nothing newer arrives. */
  private pending: { data: Buffer; timestamp: number } | undefined;
  private writes: Promise<void>[] = [];
  private screencast: { stop(): Promise<void> } | undefined;
  private source: FrameSource | undefined;
  private startTime = 0;
  private stopTime: number | undefined;

  constructor(
    private readonly dir: string,
    private readonly options: RecordOptions,
    private readonly now: () => number,
  ) {}

  /** Frames captured so far (the descriptor's `frames`). */
  get frameCount(): number {
    return this.frames.length;
  }

  async start(source: FrameSource): Promise<void> {
    this.startTime = this.now() / 1000;
    this.source = source;
    this.screencast = await source.startScreencast({ quality: this.options.quality }, (frame) => {
      this.onFrame(frame);
    });
  }

  /** Stops the screencast (first step of closing a session, docs/sessions.md#recording). */
  async stop(): Promise<void> {
    const screencast = this.screencast;
    this.screencast = undefined;
    // A browser that died (killed, crashed) has no screencast left to stop; its frames are kept.
    await screencast?.stop().catch(() => undefined);
    this.stopTime ??= this.now() / 1000;
    if (this.pending && this.frames.length < this.options.maxFrames) this.keep(this.pending);
    this.pending = undefined;
    await Promise.all(this.writes);
  }

  /** Stitches what was recorded; undefined when the page never painted a frame. */
  async stitch(ffmpeg: { path: string; timeoutMs: number }): Promise<string | undefined> {
    await this.stop();
    if (this.frames.length === 0 && this.source) {
      // Chromium sends screencast frames only when something paints: a page that stayed still
      // the whole time still gets its video, one frame held from start to stop.
      const still = await this.source.still(this.options.quality).catch(() => undefined);
      if (still) {
        this.keep({ data: still, timestamp: this.startTime });
        await Promise.all(this.writes);
      }
    }
    if (this.frames.length === 0) return undefined;
    return stitchVideo({
      frames: this.frames,
      startTime: this.startTime,
      stopTime: this.stopTime ?? this.now() / 1000,
      dir: this.dir,
      ffmpegPath: ffmpeg.path,
      timeoutMs: ffmpeg.timeoutMs,
    });
  }

  /** Stops, stitches and stores the video as a `video/mp4` artifact of `session`. */
  async store(
    artifacts: ArtifactStore,
    owner: { session: string; labels: Labels },
    ffmpeg: { path: string; timeoutMs: number },
  ): Promise<ArtifactDescriptor | undefined> {
    const video = await this.stitch(ffmpeg);
    if (!video) return undefined;
    return artifacts.put({ contentType: 'video/mp4', ...owner, body: { path: video } });
  }

  private onFrame(frame: { data: Buffer; timestamp: number }): void {
    if (this.stopTime !== undefined) return;
    const last = this.frames.at(-1);
    if (last && frame.timestamp - last.timestamp < 1 / this.options.fps) {
      this.pending = frame;
      return;
    }
    this.pending = undefined;
    this.keep(frame);
    if (this.frames.length >= this.options.maxFrames) {
      // Past maxFrames the recorder stops; the video keeps what it has.
      this.stopTime = this.now() / 1000;
      void this.screencast?.stop().catch(() => undefined);
    }
  }

  private keep(frame: { data: Buffer; timestamp: number }): void {
    const path = join(this.dir, `frame-${String(this.frames.length).padStart(6, '0')}.jpg`);
    this.frames.push({ path, timestamp: frame.timestamp });
    this.writes.push(writeFile(path, frame.data));
  }
}
