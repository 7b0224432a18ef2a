// The real render service (@havn/render's built entry point, packages/render/dist/main.js) in a
// process of its own on 127.0.0.1 port 0, with real Chromium and a temp artifact store, and a
// fixture site on loopback for it to render (reached as `localhost`, which ALLOWED_HOSTS lets
// through the private-network policy: docs/render.md#private-network-policy).
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const RENDER_TOKEN = 'cli-test-render-token-0123456789';

const MAIN = fileURLToPath(new URL('../../../render/dist/main.js', import.meta.url));

export interface RenderService {
  /** http://127.0.0.1:<port> */
  readonly url: string;
  close(): Promise<void>;
}

export async function startRenderService(): Promise<RenderService> {
  const dir = await mkdtemp(join(tmpdir(), 'havn-cli-render-'));
  const child = spawn(process.execPath, [MAIN], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH,
      HOME: dir,
      BROWSER_API_TOKEN: RENDER_TOKEN,
      HOST: '127.0.0.1',
      PORT: '0',
      ARTIFACT_DIR: join(dir, 'artifacts'),
      ALLOWED_HOSTS: 'localhost',
      MAX_CONCURRENCY: '2',
      RENDER_TIMEOUT_MS: '30000',
      LOG_LEVEL: 'info',
    },
  });
  let output = '';
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      resolve();
    }),
  );
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`render did not start within 60 s:\n${output}`));
    }, 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`render exited:\n${output}`));
    });
  });
  return {
    url,
    close: async () => {
      child.kill('SIGTERM');
      await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A page taller than a phone's screen with a 200 × 100 `#box`, and a few headings. */
export const FIXTURE_PAGE = `<!doctype html><html><head><title>Fixture</title>
<style>body{margin:0;font:16px sans-serif} #box{width:200px;height:100px;background:#c00}
section{height:1500px}</style></head><body>
<div id="box"></div><h1>Fixture page</h1><section><h2>Part one</h2></section>
<section><h2>Part two</h2></section></body></html>`;

/** An element that appears only 1.5 s after load: waiting for it makes a render slow. */
const LATE_PAGE = `<!doctype html><body><script>
setTimeout(() => { const d = document.createElement('div'); d.id = 'late';
d.style.cssText = 'width:10px;height:10px'; document.body.append(d); }, 1500);</script>`;

export interface FixtureSite {
  /** http://localhost:<port>/ serving FIXTURE_PAGE; /late LATE_PAGE; /assets/wide.css a style. */
  readonly url: string;
  close(): Promise<void>;
}

export async function startFixtureSite(): Promise<FixtureSite> {
  const server: Server = createServer((req, res) => {
    if (req.url === '/assets/wide.css') {
      res.writeHead(200, { 'content-type': 'text/css' });
      res.end('#b { width: 321px !important }');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(req.url === '/late' ? LATE_PAGE : FIXTURE_PAGE);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://localhost:${String(port)}/`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}
