// Runs the real built binary (packages/cli/dist/main.js; `node scripts/build.mjs` builds it) as a
// child process, with its configuration in a temp directory and nothing inherited from the
// environment of the machine running the tests.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The Application ID the signed-in test configurations use (a GUID, as the CLI requires). */
export const TEST_APP_ID = '5c4b3a29-1807-4f6e-9d5c-4b3a29180706';

export const HAVN_BIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

export interface HavnResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface HavnOptions {
  readonly configDir: string;
  readonly input?: string;
  readonly env?: Record<string, string>;
  /** On a terminal (havnOnTerminal): its width in columns. */
  readonly columns?: number;
}

/** The built binary with a clean environment whose home and configuration are `configDir`. */
function spawnHavn(args: readonly string[], options: HavnOptions) {
  if (!existsSync(HAVN_BIN)) {
    throw new Error(`${HAVN_BIN} is missing: run 'node scripts/build.mjs' first`);
  }
  return spawn(process.execPath, [HAVN_BIN, ...args], {
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: options.configDir,
      HAVN_CONFIG_DIR: options.configDir,
      ...options.env,
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

export async function havn(args: readonly string[], options: HavnOptions): Promise<HavnResult> {
  const child = spawnHavn(args, options);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
  child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  // A command that refuses its arguments exits before it reads its input: that is its answer,
  // not a broken test, so the pipe closing under the write (EPIPE) is not an error here.
  let stdinError: Error | undefined;
  child.stdin.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') stdinError = err;
  });
  child.stdin.end(options.input ?? '');
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  if (stdinError) throw stdinError;
  return { code, stdout, stderr };
}

/** A running binary: its output so far, a wait for output, and its end. */
export interface RunningHavn {
  readonly stdout: () => string;
  readonly stderr: () => string;
  /** Resolves once stdout satisfies `ready`; rejects after `ms` with what was printed. */
  waitFor(ready: (stdout: string) => boolean, ms?: number): Promise<void>;
  /** Sends `signal` and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts the binary and leaves it running (for --follow). */
export function startHavn(args: readonly string[], options: HavnOptions): RunningHavn {
  const child = spawnHavn(args, options);
  child.stdin.end(); // no input: the command reads end of file at once
  let stdout = '';
  let stderr = '';
  const listeners = new Set<() => void>();
  child.stdout.setEncoding('utf8').on('data', (s: string) => {
    stdout += s;
    for (const l of listeners) l();
  });
  child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  return {
    stdout: () => stdout,
    stderr: () => stderr,
    waitFor: (ready, ms = 20_000) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (!ready(stdout)) return;
          listeners.delete(check);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`timed out; stdout:\n${stdout}\nstderr:\n${stderr}`));
        }, ms);
        listeners.add(check);
        check();
      }),
    stop: async (signal = 'SIGINT') => {
      child.kill(signal);
      return exited;
    },
  };
}

/** A fresh, empty configuration directory; `cleanup` removes it. */
export async function tempConfigDir(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'havn-cli-'));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * A configuration directory pointed at `apiUrl` and signed in with `token`, via the binary; the
 * app TEST_APP_ID unless `target` names another ID (`['--workspace-id', ID]`).
 */
export async function signedInConfigDir(
  apiUrl: string,
  token: string,
  target: readonly string[] = ['--app-id', TEST_APP_ID],
): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const temp = await tempConfigDir();
  const configured = await havn(['configure', 'telemetry', ...target, '--api-url', apiUrl], {
    configDir: temp.dir,
  });
  if (configured.code !== 0) throw new Error(`configure failed: ${configured.stderr}`);
  const login = await havn(['login', '--with-token'], { configDir: temp.dir, input: token });
  if (login.code !== 0) throw new Error(`login failed: ${login.stderr}`);
  return temp;
}

/** A JWT-shaped token (unsigned: the CLI reads `exp` only) expiring at `exp` (epoch seconds). */
export function jwtWithExpiry(exp: number): string {
  const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  return `${part({ alg: 'none', typ: 'JWT' })}.${part({ aud: 'https://api.applicationinsights.io', exp })}.sig`;
}

/** ANSI escape sequences (colour codes) in `text`. */
export const ANSI = new RegExp(`${String.fromCharCode(27)}\\[`);

/**
 * Runs the binary with stdout on a pseudo-terminal (util-linux `script`), to see what a person at
 * a terminal sees. Output lines end in CRLF there.
 */
export async function havnOnTerminal(
  args: readonly string[],
  options: HavnOptions,
): Promise<HavnResult> {
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const size =
    options.columns === undefined ? '' : `stty cols ${String(options.columns)} rows 50; exec `;
  const command = size + [process.execPath, HAVN_BIN, ...args].map(quote).join(' ');
  const child = spawn('script', ['-qec', command, '/dev/null'], {
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: options.configDir,
      HAVN_CONFIG_DIR: options.configDir,
      TERM: 'xterm-256color',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
  child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  return { code, stdout, stderr };
}
