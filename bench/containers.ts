// bench/containers (docs/benchmarks.md#containers): the two images as podman builds them here,
// measured in one run:
//   - each image's size (uncompressed, as `docker images` shows it);
//   - cold start: from `podman run` of a fresh container on an empty volume to the first 200 of
//     its health path (and, for render, to the first finished render, which waits for the browser);
//   - render throughput at concurrency 2: the render container against the same build on the host,
//     PNGs of one page through HTTP, in alternating rounds so both see the same machine load.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBaseImage } from '../scripts/containers/debian-base.js';
import { buildImage, IMAGES, podman, root, run } from '../scripts/containers/podman.js';
import { median, printSummary, printTable } from './lib/harness.js';

const TOKEN = 'bench-token-0123456789abcdef';
const CONCURRENCY = 2;
const RENDERS = Number(process.env['BENCH_RENDERS'] ?? 60);
const ROUND = 10;
const STARTS = 3;

const PAGE = `<!doctype html><html><head><style>
body{font-family:sans-serif;margin:24px;background:#fafafa}
.card{display:grid;grid-template-columns:repeat(3,1fr);gap:12px}
.card div{padding:16px;border-radius:8px;background:linear-gradient(#fff,#eef);box-shadow:0 1px 3px #0003}
</style></head><body><h1>Havn containers bench</h1><div class="card">${Array.from(
  { length: 12 },
  (_, i) =>
    `<div><h3>Item ${i}</h3><p>Lorem ipsum dolor sit amet, consectetur adipiscing elit.</p></div>`,
).join('')}</div></body></html>`;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Polls `url` until it answers 200; the milliseconds from `since`. */
async function firstOk(url: string, since: number, init?: RequestInit): Promise<number> {
  for (;;) {
    try {
      const res = await fetch(url, init);
      await res.arrayBuffer();
      if (res.ok) return performance.now() - since;
    } catch {
      // not listening yet
    }
    if (performance.now() - since > 180_000) throw new Error(`${url} never answered 200`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const renderInit = (): RequestInit => ({
  method: 'POST',
  headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
  body: JSON.stringify({ html: PAGE, profile: 'desktop' }),
});

interface Started {
  base: string;
  stop(): Promise<void>;
}

/** A fresh render or forms container on a fresh volume, published on a loopback port. */
async function startContainer(target: keyof typeof IMAGES, name: string): Promise<Started> {
  const port = await freePort();
  const inner = target === 'render' ? 3000 : 3100;
  await run('podman', ['rm', '-f', '-v', name]);
  await run('podman', ['volume', 'rm', '-f', `${name}-data`]);
  await podman([
    'run',
    '-d',
    '--name',
    name,
    '--read-only',
    '-p',
    `127.0.0.1:${port}:${inner}`,
    '-v',
    `${name}-data:/data`,
    '-e',
    `BROWSER_API_TOKEN=${TOKEN}`,
    '-e',
    `FORM_ADMIN_TOKEN=${TOKEN}`,
    '-e',
    `MAX_CONCURRENCY=${CONCURRENCY}`,
    IMAGES[target],
  ]);
  return {
    base: `http://127.0.0.1:${port}`,
    async stop() {
      await run('podman', ['rm', '-f', '-t', '30', '-v', name]);
      await run('podman', ['volume', 'rm', '-f', `${name}-data`]);
    },
  };
}

/** The same build on the host: packages/render/dist/main.js with the container's settings. */
async function startHost(): Promise<Started> {
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), 'havn-bench-containers-'));
  const child: ChildProcess = spawn(
    process.execPath,
    [join(root, 'packages', 'render', 'dist', 'main.js')],
    {
      env: {
        PATH: process.env['PATH'] ?? '',
        HOST: '127.0.0.1',
        PORT: String(port),
        BROWSER_API_TOKEN: TOKEN,
        MAX_CONCURRENCY: String(CONCURRENCY),
        ARTIFACT_DIR: join(dir, 'artifacts'),
        CHROMIUM_PATH: '/usr/bin/chromium-headless-shell',
        // TMPDIR stays the system's: run as root, render hands each browser a uid of its own,
        // which must reach the profile folders it makes there (a private mkdtemp folder is 0700).
        NODE_ENV: 'production',
      },
      stdio: 'ignore',
    },
  );
  return {
    base: `http://127.0.0.1:${port}`,
    async stop() {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** ROUND renders at CONCURRENCY; the milliseconds of each. */
async function round(base: string): Promise<number[]> {
  const times: number[] = [];
  let left = ROUND;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (left-- > 0) {
        const t0 = performance.now();
        const res = await fetch(`${base}/v1/render`, renderInit());
        await res.arrayBuffer();
        if (!res.ok) throw new Error(`render answered ${res.status}`);
        times.push(performance.now() - t0);
      }
    }),
  );
  return times;
}

async function main(): Promise<void> {
  await ensureBaseImage();
  await buildImage('render');
  await buildImage('forms');

  const sizes = await Promise.all(
    (Object.keys(IMAGES) as (keyof typeof IMAGES)[]).map(async (target) => ({
      image: `havn-${target}`,
      MB: Number(await podman(['image', 'inspect', '--format', '{{.Size}}', IMAGES[target]])) / 1e6,
    })),
  );
  printTable('image sizes (uncompressed)', sizes);

  const starts: Record<string, number | string>[] = [];
  for (let i = 0; i < STARTS; i++) {
    for (const target of ['render', 'forms'] as const) {
      const t0 = performance.now();
      const c = await startContainer(target, `havn-bench-${target}`);
      try {
        const healthy = await firstOk(
          `${c.base}${target === 'render' ? '/healthz' : '/api/health'}`,
          t0,
        );
        const firstRender =
          target === 'render' ? await firstOk(`${c.base}/v1/render`, t0, renderInit()) : NaN;
        starts.push({
          image: `havn-${target}`,
          run: i + 1,
          healthyMs: healthy,
          firstRenderMs: firstRender,
        });
      } finally {
        await c.stop();
      }
    }
  }
  printTable('cold start (podman run to first 200)', starts);

  const container = await startContainer('render', 'havn-bench-throughput');
  const host = await startHost();
  const times = { container: [] as number[], host: [] as number[] };
  const elapsed = { container: 0, host: 0 };
  try {
    await firstOk(`${container.base}/v1/render`, performance.now(), renderInit());
    await firstOk(`${host.base}/v1/render`, performance.now(), renderInit());
    // Warm both: the first renders of a browser are slower than the rest.
    await round(container.base);
    await round(host.base);
    for (let done = 0; done < RENDERS; done += ROUND) {
      for (const [key, base] of [
        ['container', container.base],
        ['host', host.base],
      ] as const) {
        const t0 = performance.now();
        times[key].push(...(await round(base)));
        elapsed[key] += performance.now() - t0;
      }
    }
  } finally {
    await container.stop();
    await host.stop();
  }
  const rate = (key: 'container' | 'host') => (times[key].length / elapsed[key]) * 1000;
  printTable(`render throughput, PNG over HTTP, concurrency ${CONCURRENCY}`, [
    {
      subject: 'container',
      renders: times.container.length,
      perSec: rate('container'),
      p50ms: median(times.container),
    },
    {
      subject: 'host',
      renders: times.host.length,
      perSec: rate('host'),
      p50ms: median(times.host),
    },
  ]);
  const ratio = rate('container') / rate('host');
  const healthy = (image: string) =>
    median(starts.filter((s) => s.image === image).map((s) => Number(s.healthyMs)));
  printSummary(
    'containers',
    `render ${sizes[0]?.MB.toFixed(0)} MB, forms ${sizes[1]?.MB.toFixed(0)} MB; cold start to healthy p50 render ${healthy('havn-render').toFixed(0)} ms, forms ${healthy('havn-forms').toFixed(0)} ms; render throughput container/host ${ratio.toFixed(2)} at c=${CONCURRENCY} (goal >= 0.95)`,
  );
}

await main();
