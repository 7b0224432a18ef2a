import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { TEST_TOKEN } from './service.js';

// A render instance in a process of its own, the real entry point (main.ts), so that a test can
// kill it for real (SIGKILL) or stop it (SIGTERM) and read its log lines.

const MAIN = fileURLToPath(new URL('../main.ts', import.meta.url));

export interface RenderInstance {
  name: string;
  port: number;
  /** http://127.0.0.1:<port>, the address its peers reach it by. */
  base: string;
  /** Every log line so far, stdout and stderr. */
  logs: string[];
  child: ChildProcess;
  /** Resolves with the exit code (null when killed by a signal) once the process ends. */
  exited: Promise<number | null>;
  /** Resolves when a log line matches. */
  waitForLog(pattern: RegExp, timeoutMs?: number): Promise<string>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts main.ts with `env` on top of a test token and loopback; resolves once it joined. */
export async function startRenderInstance(
  name: string,
  env: Record<string, string>,
  options: { echo?: boolean } = {},
): Promise<RenderInstance> {
  const child = spawn(process.execPath, ['--import', import.meta.resolve('tsx/esm'), MAIN], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      BROWSER_API_TOKEN: TEST_TOKEN,
      HOST: '127.0.0.1',
      PORT: '0',
      INSTANCE_NAME: name,
      MAX_CONCURRENCY: '2',
      ...env,
    },
  });
  const logs: string[] = [];
  const waiters = new Set<{ pattern: RegExp; resolve: (line: string) => void }>();
  const onLine = (line: string): void => {
    logs.push(line);
    if (options.echo) process.stdout.write(`${name}: ${line}\n`);
    for (const w of waiters) {
      if (w.pattern.test(line)) {
        waiters.delete(w);
        w.resolve(line);
      }
    }
  };
  for (const stream of [child.stdout, child.stderr]) {
    let rest = '';
    stream.on('data', (chunk: Buffer) => {
      const lines = (rest + chunk.toString()).split('\n');
      rest = lines.pop() ?? '';
      lines.forEach(onLine);
    });
  }
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => {
      resolve(code);
    });
  });
  const waitForLog = (pattern: RegExp, timeoutMs = 60_000): Promise<string> => {
    const seen = logs.find((l) => pattern.test(l));
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const waiter = { pattern, resolve };
      waiters.add(waiter);
      const timer = setTimeout(() => {
        waiters.delete(waiter);
        reject(
          new Error(
            `${name}: no log line ${String(pattern)}; last lines:\n${logs.slice(-15).join('\n')}`,
          ),
        );
      }, timeoutMs);
      timer.unref();
      void exited.then(() => {
        if (!waiters.has(waiter)) return;
        waiters.delete(waiter);
        clearTimeout(timer);
        reject(new Error(`${name} exited; last lines:\n${logs.slice(-15).join('\n')}`));
      });
    });
  };
  const listening = await waitForLog(/Server listening at http:\/\/127\.0\.0\.1:\d+/);
  const port = Number(/127\.0\.0\.1:(\d+)/.exec(listening)![1]);
  await waitForLog(/joined the cluster/);
  return {
    name,
    port,
    base: `http://127.0.0.1:${String(port)}`,
    logs,
    child,
    exited,
    waitForLog,
    stop: (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}
