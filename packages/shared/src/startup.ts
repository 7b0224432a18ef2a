import { createServer } from 'node:net';
import { ConfigError } from './config.js';

// The start-up path both services share (docs/configuration.md#start-up-errors): configuration
// errors exit 2 naming every bad variable; a port that cannot be bound exits 1 with one line,
// before the service has created any data.

/** Runs `load`; on a ConfigError prints every problem on stderr and exits 2. */
export function configOrExit<T>(service: string, load: () => T): T {
  try {
    return load();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`havn ${service}: ${err.message}\n`);
    process.exit(2);
  }
}

/** One line saying why `port` on `host` cannot be bound, or undefined for an unknown error. */
function listenProblem(err: unknown, port: number, host: string): string | undefined {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'EADDRINUSE') return `port ${port} is in use (set PORT)`;
  if (code === 'EACCES') return `port ${port} needs privileges this process lacks (set PORT)`;
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') {
    return `${host} is not an address of this machine (set HOST)`;
  }
  return undefined;
}

function exitWith(service: string, line: string): never {
  process.stderr.write(`havn ${service}: ${line}\n`);
  process.exit(1);
}

/**
 * Binds `port` on `host` for a moment and lets it go, so that a taken port stops the service
 * before it creates its data directory, database or keys. Exits 1 with one line when it cannot.
 * Port 0 (any free port) always succeeds, so it is not tried.
 */
export async function checkPortOrExit(service: string, port: number, host: string): Promise<void> {
  if (port === 0) return;
  const server = createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ port, host, exclusive: true }, resolve);
    });
  } catch (err) {
    const line = listenProblem(err, port, host);
    if (line === undefined) throw err;
    exitWith(service, line);
  }
  await new Promise<void>((resolve) =>
    server.close(() => {
      resolve();
    }),
  );
}

/**
 * `app.listen`, with the same one-line exit as checkPortOrExit when the port was taken in the
 * meantime; the app is closed first so that browsers and databases are let go.
 */
export async function listenOrExit(
  service: string,
  app: { listen(opts: { port: number; host: string }): Promise<string>; close(): Promise<unknown> },
  port: number,
  host: string,
): Promise<string> {
  try {
    return await app.listen({ port, host });
  } catch (err) {
    const line = listenProblem(err, port, host);
    if (line === undefined) throw err;
    await app.close().catch(() => undefined);
    exitWith(service, line);
  }
}
