#!/usr/bin/env node
// `npm start` (after setup): both services on loopback with embedded defaults, one dev token.
// The token is generated once into data/dev-token (mode 0600) so restarts keep working clients.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tokenFile = join(root, 'data', 'dev-token');
mkdirSync(dirname(tokenFile), { recursive: true });
if (!existsSync(tokenFile))
  writeFileSync(tokenFile, randomBytes(24).toString('base64url'), { mode: 0o600 });
const token = readFileSync(tokenFile, 'utf8').trim();

const host = process.env.HOST ?? '127.0.0.1';
// docs/quickstart.md: a development start on loopback lets webhooks reach receivers on this
// machine (where a developer runs one); a server others can reach keeps the production default.
const loopback = /^(127\.|localhost$|::1$|\[::1\]$)/.test(host);
const privateWebhooks = process.env.ALLOW_PRIVATE_WEBHOOKS ?? (loopback ? '1' : '0');
const services = [
  {
    name: 'render',
    main: 'packages/render/dist/main.js',
    env: { PORT: process.env.RENDER_PORT ?? '3000', BROWSER_API_TOKEN: token },
  },
  {
    name: 'forms',
    main: 'packages/forms/dist/main.js',
    env: {
      PORT: process.env.FORMS_PORT ?? '3100',
      FORM_ADMIN_TOKEN: token,
      ALLOW_PRIVATE_WEBHOOKS: privateWebhooks,
    },
  },
];

const base = (s) => `http://${host.includes(':') ? `[${host}]` : host}:${s.env.PORT}`;
console.log(
  `havn: dev token ${token} (in data/dev-token; the admin token: scripts, never a browser)`,
);
console.log(`havn: render on ${base(services[0])}`);
console.log(`havn: forms on ${base(services[1])}, the inbox at ${base(services[1])}/`);
if (privateWebhooks === '1' && process.env.ALLOW_PRIVATE_WEBHOOKS === undefined) {
  console.log(
    'havn: development start on loopback: webhooks may go to this machine and private networks ' +
      '(ALLOW_PRIVATE_WEBHOOKS=1; set ALLOW_PRIVATE_WEBHOOKS=0 for production behaviour)',
  );
}

// The forms server logs JSON lines; its setup link (docs/forms.md#first-run-and-setup-links) is
// the one a person must read, so that line is shown as plain text instead, still only once.
function relay(stream, name) {
  createInterface({ input: stream }).on('line', (line) => {
    let msg;
    try {
      msg = JSON.parse(line).msg;
    } catch {
      // not a log line
    }
    const setup = typeof msg === 'string' && msg.startsWith('no organisation yet');
    console.log(setup ? `havn: ${name}: ${msg}` : line);
  });
}

let running = services.length;
const children = services.map((s) => {
  const child = spawn(process.execPath, [join(root, s.main)], {
    cwd: root,
    stdio: ['inherit', 'pipe', 'inherit'],
    env: { HOST: host, ...process.env, ...s.env },
  });
  relay(child.stdout, s.name);
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
