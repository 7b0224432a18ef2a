import { createServer, type Server } from 'node:http';
import type { Logger } from '@havn/shared';
import { storeUnavailable } from './store/store-unavailable.js';

// A PostgreSQL that is not there yet when the forms server starts (a compose stack or a Kubernetes
// pod starting together with its database) is waited for, not exited on: the server keeps trying
// with backoff, says so in the log, and meanwhile answers on its port that it is not ready, so a
// readiness probe keeps it out of rotation and a liveness probe does not restart it in a loop
// (docs/operations.md#postgresql-not-there-at-start). A database that answers but refuses (a
// wrong password, no such database) is a configuration mistake that waiting will not mend: it is
// thrown at once.

const FIRST_WAIT_MS = 1_000;
const LONGEST_WAIT_MS = 30_000;

export interface WaitOptions {
  port: number;
  host: string;
  /** The database, as the log may show it (no password). */
  where: string;
  log: Logger;
}

/** Answers every request 503 while the store is being waited for; /api/health says why. */
function holdingServer(reason: () => string): Server {
  return createServer((req, res) => {
    const health = (req.url ?? '').split('?', 1)[0] === '/api/health';
    const body = health
      ? { ok: false, error: `waiting for the database: ${reason()}` }
      : { error: 'the server is starting: waiting for the database' };
    res.writeHead(503, {
      'content-type': 'application/json; charset=utf-8',
      'retry-after': '5',
      connection: 'close',
    });
    res.end(JSON.stringify(body));
  });
}

/**
 * Runs `open` until it succeeds. While PostgreSQL cannot be reached, a holding server answers on
 * the service's port; it is closed before the store is handed back, so the caller can listen.
 */
export async function openWhenReachable<T>(
  open: () => Promise<T>,
  options: WaitOptions,
): Promise<T> {
  const { log, where } = options;
  let server: Server | undefined;
  let reason = '';
  // A stop signal while waiting: there is nothing to drain yet.
  const stop = (): void => {
    log.info('stopped while waiting for the database');
    process.exit(0);
  };
  try {
    for (let attempt = 1, waitMs = FIRST_WAIT_MS; ; attempt++) {
      try {
        const opened = await open();
        if (server !== undefined) log.info(`the database at ${where} is reachable`);
        return opened;
      } catch (err) {
        if (storeUnavailable(err) === undefined) throw err;
        reason = (err as Error).message || String((err as { code?: unknown }).code ?? err);
      }
      // Answering before saying so: whoever reads the log can ask at once.
      if (server === undefined) {
        server = await listenHolding(options, () => reason);
        process.on('SIGTERM', stop).on('SIGINT', stop);
      }
      log.warn(
        { attempt, retryInMs: waitMs },
        `the database at ${where} is not reachable (${reason}); trying again in ${String(Math.round(waitMs / 1000))} s`,
      );
      await new Promise((resolve) => setTimeout(resolve, waitMs));
      waitMs = Math.min(waitMs * 2, LONGEST_WAIT_MS);
    }
  } finally {
    const holding = server;
    if (holding !== undefined) {
      process.off('SIGTERM', stop).off('SIGINT', stop);
      await new Promise<void>((resolve) =>
        holding.close(() => {
          resolve();
        }),
      );
    }
  }
}

async function listenHolding(options: WaitOptions, reason: () => string): Promise<Server> {
  const server = holdingServer(reason);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, resolve);
  });
  return server;
}
