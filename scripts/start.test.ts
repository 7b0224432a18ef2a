import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, test } from 'vitest';

// `npm start` as a person sees it (docs/quickstart.md): its output names the inbox, says that a
// development start allows loopback webhooks, and carries the forms server's setup link as plain
// text, once; the link creates the first organisation; the render address answers a page.

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'havn-start-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

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

test('npm start prints the inbox, the loopback webhook default and one setup link that works', async () => {
  const [render, forms] = [await freePort(), await freePort()];
  const child = spawn(process.execPath, [join(root, 'scripts', 'start.mjs')], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? dir,
      RENDER_PORT: String(render),
      FORMS_PORT: String(forms),
      USER_DATA_DIR: join(dir, 'forms'),
      ARTIFACT_DIR: join(dir, 'artifacts'),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const find = () =>
    /^havn: forms: no organisation yet: open (\S+\/#\/setup\/([\w-]+)) /m.exec(out);
  let code: string | undefined;
  try {
    const deadline = Date.now() + 60_000;
    let link: RegExpExecArray | null;
    while (!(link = find())) {
      if (Date.now() > deadline) throw new Error(`no setup link in:\n${out}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const url = link[1];
    code = link[2] ?? '';
    expect(url).toBe(`http://127.0.0.1:${forms}/#/setup/${code}`);
    expect(out).toContain(
      `havn: forms on http://127.0.0.1:${forms}, the inbox at http://127.0.0.1:${forms}/`,
    );
    expect(out).toContain(
      'havn: development start on loopback: webhooks may go to this machine and private networks (ALLOW_PRIVATE_WEBHOOKS=1',
    );
    const done = await fetch(`http://127.0.0.1:${forms}/api/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code, slug: 'acme', name: 'Acme' }),
    });
    expect(done.status).toBe(201);
    for (;;) {
      const home = await fetch(`http://127.0.0.1:${render}/`).catch(() => undefined);
      if (home?.ok) {
        expect(await home.text()).toContain('<h1>Havn render</h1>');
        break;
      }
      if (Date.now() > deadline) throw new Error(`render did not answer:\n${out}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
  if (!code) throw new Error('no code');
  expect(out.split(code).length, 'the code is printed once').toBe(2);
}, 90_000);
