import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ServerDeps } from '../server.js';
import { adminToken } from './forms-server.js';

const entry = fileURLToPath(new URL('./forms-process.ts', import.meta.url));
// tsx's loader, so the child runs the sources as the tests do.
const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

export interface FormsChild {
  url: string;
  process: ChildProcessWithoutNullStreams;
  /** Resolves with the exit code (or signal) once the process has ended. */
  exited: Promise<number | string | null>;
  kill(signal: NodeJS.Signals): Promise<number | string | null>;
}

/**
 * The forms server (test-support/forms-process.ts) in a child process of its own on 127.0.0.1
 * port 0, with `env` on top of a test's defaults (admin token, private webhooks allowed).
 */
export async function startFormsChild(
  env: Record<string, string>,
  deps: Partial<Pick<ServerDeps, 'retrySchedule' | 'deliveryLeaseMs' | 'deliveryTimeoutMs'>> = {},
): Promise<FormsChild> {
  const child = spawn(process.execPath, ['--import', tsx, entry], {
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      FORM_ADMIN_TOKEN: adminToken,
      ALLOW_PRIVATE_WEBHOOKS: '1',
      LOG_LEVEL: 'error',
      FORMS_TEST_DEPS: JSON.stringify(deps),
      ...env,
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | string | null>((resolve) => {
    child.once('exit', (code, signal) => {
      resolve(signal ?? code);
    });
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /\{"url":"(http:\/\/[^"]+)"\}/.exec(out);
      if (m) resolve(m[1]!);
    });
    void exited.then((code) => {
      reject(new Error(`forms server exited early (${String(code)}): ${stderr}`));
    });
  });
  return {
    url,
    process: child,
    exited,
    kill: (signal) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}
