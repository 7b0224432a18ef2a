import type { Logger } from './logger.js';

/**
 * Closes `app` once on SIGINT or SIGTERM (a second signal while closing is ignored), then exits
 * 0, or 1 when closing failed. Each service's `onClose` hooks do the draining
 * (docs/render.md#behaviour-in-detail, docs/forms.md#graceful-shutdown); `beforeClose` runs
 * first, while the service still answers (a render instance of a cluster lets its sessions end).
 */
export function closeOnSignals(
  app: { close(): Promise<unknown> },
  log: Logger,
  beforeClose: () => Promise<void> = () => Promise.resolve(),
): void {
  let closing = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (closing) return;
      closing = true;
      log.info({ signal }, 'shutting down');
      beforeClose()
        .catch((err: unknown) => {
          log.error({ err }, 'draining failed');
        })
        .then(() => app.close())
        .then(
          () => process.exit(0),
          (err: unknown) => {
            log.error({ err }, 'shutdown failed');
            process.exit(1);
          },
        );
    });
  }
}
