import { envInt, envString, envUrl } from '@havn/shared';

// The sessions' environment variables (spec 1 §8, defaults from 0-decisions §1). render's
// config.ts spreads this shape into its own so parseEnv reports every bad variable at once.
export const sessionConfigShape = {
  MAX_SESSIONS: envInt(8, 1, 1000),
  SESSION_TTL_MS: envInt(300_000, 1000),
  SESSION_MAX_TTL_MS: envInt(3_600_000, 1000),
  PUBLIC_BASE_URL: envUrl(),
  FFMPEG_PATH: envString(),
};

/** What the session manager needs from the configuration. */
export interface SessionConfig {
  maxSessions: number;
  /** Default lease (SESSION_TTL_MS). */
  ttlMs: number;
  /** Upper clamp on `ttlMs` at creation and touch (SESSION_MAX_TTL_MS). */
  maxTtlMs: number;
  /** Scheme and host of `cdpUrl`; without it the request's Host header is used. */
  publicBaseUrl: string | undefined;
  /** ffmpeg binary for stitching recordings; `ffmpeg` on PATH by default. */
  ffmpegPath: string;
}

/** Maps parsed environment values to the session manager's configuration. */
export function sessionConfigFromEnv(env: {
  MAX_SESSIONS: number;
  SESSION_TTL_MS: number;
  SESSION_MAX_TTL_MS: number;
  PUBLIC_BASE_URL?: string | undefined;
  FFMPEG_PATH?: string | undefined;
}): SessionConfig {
  return {
    maxSessions: env.MAX_SESSIONS,
    // A default lease longer than the clamp would be clamped on every creation: clamp it once.
    ttlMs: Math.min(env.SESSION_TTL_MS, env.SESSION_MAX_TTL_MS),
    maxTtlMs: env.SESSION_MAX_TTL_MS,
    publicBaseUrl: env.PUBLIC_BASE_URL,
    ffmpegPath: env.FFMPEG_PATH ?? 'ffmpeg',
  };
}
