import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { createLogger } from '@havn/shared';
import { composeServer } from '../compose.js';
import { loadConfig } from '../config.js';
import type { App, ServerExtension } from '../server-context.js';
import { jsonAnswer, type JsonAnswer } from './json-api.js';

// Starts the real render service (real proxy, real Chromium, real filesystem store) on loopback
// port 0 with a test token, and speaks HTTP to it.

export const TEST_TOKEN = 'test-token-0123456789abcdef';

export interface TestService {
  app: App;
  base: string;
  dir: string;
  /** Every log line written so far. */
  logs: string[];
  /** fetch with the bearer token (unless `auth: false`). */
  call(path: string, init?: RequestInit & { auth?: boolean }): Promise<Response>;
  /** POST JSON with the token; returns status and parsed body. */
  post(path: string, body: unknown): Promise<JsonAnswer>;
  close(): Promise<void>;
}

export async function startService(
  env: Record<string, string> = {},
  tuning: { wedgeTimeoutMs?: number; extensions?: readonly ServerExtension[] } = {},
): Promise<TestService> {
  const dir = await mkdtemp(join(tmpdir(), 'havn-render-test-'));
  const config = loadConfig({
    PATH: process.env.PATH,
    BROWSER_API_TOKEN: TEST_TOKEN,
    ARTIFACT_DIR: join(dir, 'artifacts'),
    MAX_CONCURRENCY: '2',
    RENDER_TIMEOUT_MS: '20000',
    ...env,
  });
  const logs: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      logs.push(chunk.toString());
      done();
    },
  });
  const log = createLogger({ name: 'havn-render-test', destination });
  const app = await composeServer({ config, log, version: '0.0.0-test', ...tuning });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const base = `http://127.0.0.1:${port}`;
  const call = (path: string, init: RequestInit & { auth?: boolean } = {}) => {
    const headers = new Headers(init.headers);
    if (init.auth !== false) headers.set('authorization', `Bearer ${TEST_TOKEN}`);
    return fetch(`${base}${path}`, { ...init, headers });
  };
  return {
    app,
    base,
    dir,
    logs,
    call,
    post: async (path, body) => {
      const res = await call(path, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return jsonAnswer(res);
    },
    close: async () => {
      await app.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
