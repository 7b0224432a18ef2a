import type { CaptureLimits } from '../capture-limits.js';

/** What the session manager and the CDP door need from the configuration (docs/sessions.md). */
export interface SessionConfig {
  maxSessions: number;
  /** Default lease (SESSION_TTL_MS), never longer than the clamp. */
  ttlMs: number;
  /** Upper clamp on `ttlMs` at creation and touch (SESSION_MAX_TTL_MS). */
  maxTtlMs: number;
  /** SESSION_MAX_PAGES: pages one session may have open at once, across its contexts. */
  maxPages: number;
  /** ffmpeg binary for stitching recordings; `ffmpeg` on PATH by default. */
  ffmpegPath: string;
  /** Viewport, scale and capture bounds, for profiles and for what clients send the browser. */
  limits: CaptureLimits;
  /** The largest client message the door reads (CDP_MAX_MESSAGE_BYTES). */
  maxMessageBytes: number;
  /** Clients attached to one session at once (CDP_MAX_CLIENTS). */
  maxClients: number;
  /** The largest download kept as an artifact (DOWNLOAD_MAX_BYTES); a larger one is cancelled. */
  downloadMaxBytes: number;
  /** Downloads one session may begin (SESSION_MAX_DOWNLOADS); past it they are cancelled. */
  maxDownloads: number;
  /** Bytes one session's downloads may take together (SESSION_MAX_DOWNLOAD_BYTES). */
  maxDownloadBytes: number;
  /** What one session browser's profile and home may take on disk (SESSION_MAX_DISK_BYTES). */
  maxDiskBytes: number;
  /** How long the door waits on a verdict before refusing the command (tests shorten it). */
  verdictTimeoutMs?: number;
}
