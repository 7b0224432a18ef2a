import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, expect, test } from 'vitest';

// Start-up errors as an operator sees them (docs/configuration.md#start-up-errors): the built
// server run as a child process, its exit code, what it printed, and what it left on disk.

const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'havn-forms-main-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the server; `whenReady` is called once it logs that it listens, with its URL. */
function run(
  env: Record<string, string>,
  whenReady?: (url: string, output: () => string) => Promise<void>,
  killAfterMs = 20_000,
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN], {
      env: { PATH: process.env.PATH ?? '', USER_DATA_DIR: join(dir, 'data'), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let ready = false;
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
      const url = /listening on (http:\/\/\S+?)"/.exec(stdout)?.[1];
      if (url && whenReady && !ready) {
        ready = true;
        whenReady(url, () => stdout + stderr).then(
          () => child.kill('SIGTERM'),
          (err: unknown) => {
            child.kill('SIGKILL');
            reject(err instanceof Error ? err : new Error(String(err)));
          },
        );
      }
    });
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

async function holdPort(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as { port: number }).port, server };
}

test('a bad configuration exits 2, naming every bad variable at once', async () => {
  const { code, stderr } = await run({
    INGEST_RATE_LIMIT_PER_MINUTE: 'lots',
    PORT: '99999',
    TRUST_PROXY: 'notanip',
    LOG_LEVEL: 'loud',
    DATABASE_URL: 'mysql://x',
  });
  expect(code).toBe(2);
  for (const line of [
    'INGEST_RATE_LIMIT_PER_MINUTE must be a whole number from 0 to 1000000 (got "lots")',
    'PORT must be from 0 to 65535 (got "99999")',
    'TRUST_PROXY must list IP addresses or CIDR ranges such as 10.0.0.0/8, separated by commas (got "notanip")',
    'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "loud")',
    'DATABASE_URL must be postgres://user:password@host:port/database (or unset)',
  ]) {
    expect(stderr).toContain(line);
  }
  expect(stderr).not.toMatch(/\n\s+at /); // no stack
  expect(existsSync(join(dir, 'data'))).toBe(false);
});

test('a taken port exits 1 with one line, before any data is created', async () => {
  const { port, server } = await holdPort();
  try {
    const { code, stderr } = await run({ PORT: String(port) });
    expect(code).toBe(1);
    expect(stderr.trim()).toBe(`havn forms: port ${port} is in use (set PORT)`);
    expect(existsSync(join(dir, 'data'))).toBe(false);
  } finally {
    server.close();
  }
});

test('a valid TRUST_PROXY starts the server, and it stops cleanly on SIGTERM', async () => {
  let health = 0;
  const { code } = await run(
    { PORT: '0', TRUST_PROXY: '127.0.0.1, 10.0.0.0/8, loopback', FORM_ADMIN_TOKEN: 't' },
    async (url) => {
      health = (await fetch(`${url}/api/health`)).status;
    },
  );
  expect(health).toBe(200);
  expect(code).toBe(0);
});

test(
  'a first start prints one setup link, once; the code is in no later line, and a start with an organisation prints none',
  { timeout: 150_000 },
  async () => {
    const env = { PORT: '0', FORM_ADMIN_TOKEN: 'admin-token-of-this-test' };
    let code = '';
    // Generous deadlines: the machine may be busy; nothing here waits on a timer for its result.
    const first = await run(
      env,
      async (url, output) => {
        const deadline = Date.now() + 30_000;
        const find = () => /open (http:\/\/\S+\/#\/setup\/([\w-]+))/.exec(output());
        while (!find() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
        const link = find();
        if (!link?.[2]) throw new Error(`no setup link in ${output()}`);
        expect(link[1]!.startsWith(`${url}/#/setup/`)).toBe(true);
        code = link[2];
        const post = (body: object) =>
          fetch(`${url}/api/setup`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(body),
          });
        expect((await post({ code: `${code}x`, slug: 'acme', name: 'Acme' })).status).toBe(403);
        expect((await post({ code, slug: 'acme', name: 'Acme' })).status).toBe(201);
        expect((await post({ code, slug: 'acme2', name: 'Acme' })).status).toBe(404);
      },
      60_000,
    );
    expect(first.code).toBe(0);
    const output = first.stdout + first.stderr;
    const lines = output.split('\n').filter((l) => l.includes(code));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('no organisation yet: open http://127.0.0.1:');
    expect(output.indexOf(code)).toBe(output.lastIndexOf(code));

    const second = await run(
      env,
      async (url) => {
        expect((await fetch(`${url}/api/health`)).status).toBe(200);
      },
      60_000,
    );
    expect(second.code).toBe(0);
    expect(second.stdout + second.stderr).not.toMatch(/setup/);
  },
);
