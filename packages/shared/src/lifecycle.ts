import type { FastifyInstance } from 'fastify';
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

/**
 * Makes `app.close()` end keep-alive connections as soon as their last answer is sent. Fastify
 * closes the connections idle when close() starts and refuses new requests, but a connection whose
 * request is in flight at that moment stays open after answering for the whole keep-alive timeout
 * (72 s), and close() waits for it: a drain would outlast Kubernetes' grace period. While closing,
 * idle connections are closed every `everyMs` until the server has closed.
 */
export function closeKeepAliveOnClose(app: FastifyInstance, everyMs = 50): void {
  let timer: NodeJS.Timeout | undefined;
  app.addHook('preClose', (done) => {
    timer = setInterval(() => {
      app.server.closeIdleConnections();
    }, everyMs).unref();
    done();
  });
  // onClose runs once the server has closed, every connection with it.
  app.addHook('onClose', (_instance, done) => {
    clearInterval(timer);
    done();
  });
}
