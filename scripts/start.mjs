#!/usr/bin/env node
// `npm start` (after setup): both services on loopback with embedded defaults, one dev token.
// The token is generated once into data/dev-token (mode 0600) so restarts keep working clients.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tokenFile = join(root, 'data', 'dev-token');
mkdirSync(dirname(tokenFile), { recursive: true });
if (!existsSync(tokenFile))
  writeFileSync(tokenFile, randomBytes(24).toString('base64url'), { mode: 0o600 });
const token = readFileSync(tokenFile, 'utf8').trim();

const host = process.env.HOST ?? '127.0.0.1';
const services = [
  {
    name: 'render',
    main: 'packages/render/dist/main.js',
    env: { PORT: process.env.RENDER_PORT ?? '3000', BROWSER_API_TOKEN: token },
  },
  {
    name: 'forms',
    main: 'packages/forms/dist/main.js',
    env: { PORT: process.env.FORMS_PORT ?? '3100', FORM_ADMIN_TOKEN: token },
  },
];

console.log(`havn: dev token ${token} (in data/dev-token)`);
for (const s of services) console.log(`havn: ${s.name} on http://${host}:${s.env.PORT}`);

let running = services.length;
const children = services.map((s) => {
  const child = spawn(process.execPath, [join(root, s.main)], {
    cwd: root,
    stdio: 'inherit',
    env: { HOST: host, ...process.env, ...s.env },
  });
  child.on('exit', (code, signal) => {
    console.log(`havn: ${s.name} exited (${signal ?? code})`);
    if (--running === 0) process.exit(code ?? 0);
  });
  return child;
});
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    for (const child of children) child.kill('SIGTERM');
  });
}
