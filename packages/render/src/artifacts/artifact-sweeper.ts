import type { Logger } from '@havn/shared';
import type { ArtifactStore } from './artifact-store.js';

// Artifacts older than ARTIFACT_TTL_MS are removed. The sweeper runs at a tenth of
// the TTL (at most once a minute, at least once an hour) so that disk use tracks the TTL closely.

export interface Sweeper {
  /** Runs one sweep now; resolves with the number removed. */
  sweep(): Promise<number>;
  stop(): void;
}

export function startArtifactSweeper(options: {
  store: ArtifactStore;
  ttlMs: number;
  log: Logger;
  now?: () => number;
}): Sweeper {
  const now = options.now ?? Date.now;
  const every = Math.min(3_600_000, Math.max(1000, Math.min(60_000, options.ttlMs / 10)));
  let running: Promise<number> | undefined;
  const sweep = (): Promise<number> => {
    running ??= options.store
      .expire(new Date(now() - options.ttlMs))
      .then(
        (n) => {
          if (n > 0) options.log.info({ removed: n }, 'expired artifacts removed');
          return n;
        },
        (err: unknown) => {
          options.log.warn({ err }, 'artifact sweep failed');
          return 0;
        },
      )
      .finally(() => {
        running = undefined;
      });
    return running;
  };
  const timer = setInterval(() => void sweep(), every);
  timer.unref();
  return {
    sweep,
    stop: () => {
      clearInterval(timer);
    },
  };
}
