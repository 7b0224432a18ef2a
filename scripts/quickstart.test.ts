import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, test } from 'vitest';

// docs/quickstart.md, run as a reader would: both services started the way `npm start` starts
// them, then every `sh` block of the page, in order, in one shell, from a folder that stands in
// for the repository root (its own data/dev-token, node_modules found by walking up).

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const page = readFileSync(join(root, 'docs', 'quickstart.md'), 'utf8');
const blocks = [...page.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1] ?? '');

let work: string;
const children: ChildProcess[] = [];
const token = 'quickstart-test-token';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => {
    server.close(() => {
      resolve();
    });
  });
  return port;
}

function startService(main: string, env: Record<string, string>): void {
  const child = spawn(process.execPath, [join(root, main)], {
    cwd: work,
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', ...env },
    stdio: 'ignore',
  });
  children.push(child);
}

async function ready(url: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not come up`);
}

const ports = { render: 0, forms: 0, hook: 0 };

beforeAll(async () => {
  mkdirSync(join(root, 'data'), { recursive: true });
  work = mkdtempSync(join(root, 'data', 'quickstart-'));
  mkdirSync(join(work, 'data'));
  writeFileSync(join(work, 'data', 'dev-token'), token, { mode: 0o600 });
  ports.render = await freePort();
  ports.forms = await freePort();
  ports.hook = await freePort();
  // What scripts/start.mjs does on loopback: webhooks to this machine allowed
  // (scripts/start.test.ts checks that it does).
  startService('packages/render/dist/main.js', {
    PORT: String(ports.render),
    BROWSER_API_TOKEN: token,
    ALLOW_PRIVATE_WEBHOOKS: '1',
  });
  startService('packages/forms/dist/main.js', {
    PORT: String(ports.forms),
    FORM_ADMIN_TOKEN: token,
    ALLOW_PRIVATE_WEBHOOKS: '1',
  });
  await ready(`http://127.0.0.1:${ports.render}/healthz`);
  await ready(`http://127.0.0.1:${ports.forms}/api/health`);
});

afterAll(async () => {
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null) {
            resolve();
            return;
          }
          child.on('exit', () => {
            resolve();
          });
          child.kill('SIGTERM');
        }),
    ),
  );
  rmSync(work, { recursive: true, force: true });
});

test('the quick start starts the services with npm start', () => {
  expect(blocks[0]?.trim()).toBe('npm start');
});

test('every other command of the quick start runs as written and does what the page says', async () => {
  const script = ['set -euo pipefail', ...blocks.slice(1)].join('\n');
  const { code, stdout, stderr } = await new Promise<{
    code: number | null;
    stdout: string;
    stderr: string;
  }>((resolve, reject) => {
    const shell = spawn('bash', ['-c', script], {
      cwd: work,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? work,
        RENDER_PORT: String(ports.render),
        FORMS_PORT: String(ports.forms),
        HOOK_PORT: String(ports.hook),
      },
    });
    let out = '';
    let err = '';
    shell.stdout.on('data', (c: Buffer) => (out += c.toString()));
    shell.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const timer = setTimeout(() => shell.kill('SIGKILL'), 110_000);
    shell.on('error', reject);
    shell.on('exit', (exitCode) => {
      clearTimeout(timer);
      resolve({ code: exitCode, stdout: out, stderr: err });
    });
  });
  expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  // The screenshot is a PNG.
  expect(readFileSync(join(work, 'shot.png')).subarray(1, 4).toString()).toBe('PNG');
  // Playwright drove the session.
  expect(stdout).toContain('button says clicked');
  // The embedding page's origin gets the definition.
  const form = JSON.parse(readFileSync(join(work, 'form.json'), 'utf8')) as {
    intro: { title: string };
  };
  expect(form.intro.title).toBe('Contact us');
  expect(readFileSync(join(work, 'embed.html'), 'utf8')).toContain(
    `src="http://127.0.0.1:${ports.forms}/runtime.js"`,
  );
  // The webhook arrived and its signature checked out.
  expect(stdout).toContain('verified submission.created from Ada');
}, 120_000);
