import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { holdPort } from '../../../test-support/ports.js';

// Start-up errors as an operator sees them (docs/configuration.md#start-up-errors): the built
// service run as a child process, its exit code and what it printed on stderr.

const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));

function run(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN], {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

test('a bad configuration exits 2, naming every bad variable in plain words', async () => {
  const { code, stderr } = await run({
    BROWSER_API_TOKEN: 't',
    MAX_CONCURRENCY: '0',
    PORT: '99999',
    ALLOW_PRIVATE_NETWORK: 'yes',
  });
  expect(code).toBe(2);
  expect(stderr).toContain('MAX_CONCURRENCY must be 1 or more (got "0")');
  expect(stderr).toContain('PORT must be from 0 to 65535 (got "99999")');
  expect(stderr).toContain('ALLOW_PRIVATE_NETWORK must be 1 or 0 (got "yes")');
  expect(stderr).not.toMatch(/\n\s+at /); // no stack
});

test('a bad STATE_KEY exits 2, saying how to make one and never echoing it', async () => {
  // 32 bytes would do; these 31 are one short.
  const key = Buffer.alloc(31, 7).toString('base64');
  const { code, stderr } = await run({ BROWSER_API_TOKEN: 't', STATE_KEY: key });
  expect(code).toBe(2);
  expect(stderr).toContain('STATE_KEY must be 32 random bytes in base64');
  expect(stderr).toContain('openssl rand -base64 32');
  expect(stderr).not.toContain(key);
});

test('a taken port exits 1 with one line and no stack', async () => {
  const { port, server } = await holdPort();
  try {
    const { code, stderr } = await run({ BROWSER_API_TOKEN: 't', PORT: String(port) });
    expect(code).toBe(1);
    expect(stderr.trim()).toBe(`havn render: port ${port} is in use (set PORT)`);
  } finally {
    server.close();
  }
});
