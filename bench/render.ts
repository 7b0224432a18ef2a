// bench/render (docs/benchmarks.md#render): the service rendering PNG over HTTP at concurrency 1
// and at MAX_CONCURRENCY, against a bare playwright-core loop doing the same captures (new context,
// goto, screenshot, close) in the same Chromium on the same local page. Prints renders/s, p50/p95
// latency, the ratio service/bare, and the service's peak RSS (node + browser) under load. The
// subjects alternate in rounds of ROUND renders so that both see the same machine load. The service
// runs in a child process (as in production, the client is another process).
import { execFileSync, fork } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Page } from 'playwright-core';
import { PDFDocument } from 'pdf-lib';
import { createLogger } from '@havn/shared';
import {
  browserLaunchArgs,
  composeServer,
  loadConfig,
  markdownExpression,
  pageCallExpression,
  builtInProfile,
} from '@havn/render/testing';
import { percentile, printSummary, printTable } from './lib/harness.js';

const TOKEN = 'bench-token-0123456789abcdef';
const MAX_CONCURRENCY = Math.max(2, availableParallelism());
const RENDERS = Number(process.env['BENCH_RENDERS'] ?? 80);
const WARMUP = 8;
const ROUND = 10;
const DOCS = Number(process.env['BENCH_DOCS'] ?? 20);
// A reading takes a fifth of a PDF's time, so it gets three times the jobs: twenty at two in
// flight made two rounds, and one slow round moved the ratio by a tenth.
const READINGS = 3 * DOCS;
const chromiumPath = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium-headless-shell';

// A page with some layout, text and vector graphics, like a typical card or receipt.
const PAGE = `<!doctype html><html><head><style>
body{font-family:sans-serif;margin:24px;background:#fafafa}
.card{display:grid;grid-template-columns:repeat(3,1fr);gap:12px}
.card div{padding:16px;border-radius:8px;background:linear-gradient(#fff,#eef);box-shadow:0 1px 3px #0003}
</style></head><body><h1>Havn render bench</h1><div class="card">${Array.from(
  { length: 12 },
  (_, i) =>
    `<div><h3>Item ${i}</h3><p>Lorem ipsum dolor sit amet, consectetur adipiscing elit.</p><svg width="60" height="20"><rect width="${5 * i}" height="20" fill="#36c"/></svg></div>`,
).join('')}</div></body></html>`;

async function serve(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'havn-bench-render-'));
  const config = loadConfig({
    PATH: process.env['PATH'],
    BROWSER_API_TOKEN: TOKEN,
    ARTIFACT_DIR: join(dir, 'artifacts'),
    CHROMIUM_PATH: chromiumPath,
    MAX_CONCURRENCY: String(MAX_CONCURRENCY),
    ALLOWED_HOSTS: 'localhost',
  });
  const app = await composeServer({
    config,
    log: createLogger({ name: 'bench', level: 'silent' }),
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  process.on('message', () => {
    void app.close().then(async () => {
      await rm(dir, { recursive: true, force: true });
      process.send?.({ stopped: true });
      process.disconnect();
    });
  });
  process.send?.({ base: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}` });
}

/** Runs `total` jobs with `concurrency` workers; returns per-job latencies and wall time. */
async function load(total: number, concurrency: number, job: () => Promise<void>) {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < total) {
        const t = performance.now();
        await job();
        latencies.push(performance.now() - t);
      }
    }),
  );
  return { latencies, wall: (performance.now() - started) / 1000 };
}

/** Latencies and wall time summed over the rounds a subject ran in. */
class Tally {
  latencies: number[] = [];
  wall = 0;
  add(r: { latencies: number[]; wall: number }): void {
    this.latencies.push(...r.latencies);
    this.wall += r.wall;
  }
  get result() {
    return {
      rps: this.latencies.length / this.wall,
      p50: percentile(this.latencies, 50),
      p95: percentile(this.latencies, 95),
    };
  }
}

/** RSS in MiB of `pid` and every process below it. */
function treeRssMiB(pid: number): number {
  const rows = execFileSync('ps', ['-e', '-o', 'pid=,ppid=,rss='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((l) => l.trim().split(/\s+/).map(Number));
  const tree = new Set([pid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [p, pp] of rows) {
      if (p !== undefined && pp !== undefined && tree.has(pp) && !tree.has(p)) {
        tree.add(p);
        grew = true;
      }
    }
  }
  return rows.reduce((sum, [p, , rss]) => sum + (tree.has(p ?? -1) ? (rss ?? 0) : 0), 0) / 1024;
}

async function main(): Promise<void> {
  const site = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(PAGE);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  const pageUrl = `http://localhost:${(site.address() as AddressInfo).port}/`;

  // (a) the service over HTTP.
  const child = fork(fileURLToPath(import.meta.url), ['--serve'], {
    execArgv: ['--import', import.meta.resolve('tsx/esm')],
  });
  const base = await new Promise<string>((resolve) => {
    child.once('message', (m: { base: string }) => {
      resolve(m.base);
    });
  });
  const render = async () => {
    const res = await fetch(`${base}/v1/render`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: pageUrl }),
    });
    if (res.status !== 200) throw new Error(`render answered ${res.status}: ${await res.text()}`);
    await res.arrayBuffer();
  };
  // (b) the bare playwright-core loop, same Chromium, same flags, straight to the page.
  const browser = await chromium.launch({
    executablePath: chromiumPath,
    args: browserLaunchArgs('http://127.0.0.1:1', { sandbox: false }).filter(
      (a) => !a.startsWith('--proxy-server'),
    ),
  });
  // Without --proxy-server the host-resolver rule would fail "localhost": the bare loop resolves
  // nothing itself, so point it at 127.0.0.1 directly.
  const desktop = builtInProfile('desktop');
  if (!desktop) throw new Error('no desktop profile');
  const barePage = pageUrl.replace('localhost', '127.0.0.1');
  /** A fresh context with the service's default profile, the page loaded, `work` on it. */
  const bare = async (work: (page: Page) => Promise<unknown>): Promise<void> => {
    const context = await browser.newContext({
      viewport: desktop.viewport,
      deviceScaleFactor: desktop.deviceScaleFactor,
      isMobile: desktop.isMobile,
      hasTouch: desktop.hasTouch,
      colorScheme: desktop.colorScheme,
      locale: desktop.locale,
      timezoneId: desktop.timezone,
    });
    try {
      const page = await context.newPage();
      await page.goto(barePage);
      await work(page);
    } finally {
      await context.close();
    }
  };
  const bareJob = () => bare((page) => page.screenshot({ type: 'png' }));
  // Alternate short rounds of each subject so both see the same machine (it is shared and noisy).
  await load(WARMUP, MAX_CONCURRENCY, render);
  await load(WARMUP, MAX_CONCURRENCY, bareJob);
  const [service1, bare1, serviceN, bareN] = [new Tally(), new Tally(), new Tally(), new Tally()];
  let peakRss = 0;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, treeRssMiB(child.pid ?? 0));
  }, 100);
  for (let done = 0; done < RENDERS; done += ROUND) {
    service1.add(await load(ROUND, 1, render));
    bare1.add(await load(ROUND, 1, bareJob));
    serviceN.add(await load(ROUND, MAX_CONCURRENCY, render));
    bareN.add(await load(ROUND, MAX_CONCURRENCY, bareJob));
  }
  clearInterval(sampler);
  if (!process.env['BENCH_SKIP_DOCUMENTS']) await documents(base, pageUrl, bare);
  await new Promise<void>((resolve) => {
    child.once('message', () => {
      resolve();
    });
    child.send({ stop: true });
  });
  await browser.close();
  site.close();

  const row = (name: string, c: number, r: { rps: number; p50: number; p95: number }) => ({
    subject: name,
    concurrency: c,
    'renders/s': r.rps,
    'p50 ms': r.p50,
    'p95 ms': r.p95,
  });
  printTable(
    `render: ${RENDERS} PNG renders of one local page (MAX_CONCURRENCY ${MAX_CONCURRENCY})`,
    [
      row('service (HTTP)', 1, service1.result),
      row('bare playwright', 1, bare1.result),
      row('service (HTTP)', MAX_CONCURRENCY, serviceN.result),
      row('bare playwright', MAX_CONCURRENCY, bareN.result),
    ],
  );
  printSummary(
    'render',
    `throughput service/bare ${(service1.result.rps / bare1.result.rps).toFixed(2)} at c=1, ${(serviceN.result.rps / bareN.result.rps).toFixed(2)} at c=${MAX_CONCURRENCY} (goal ≥ 0.85); ` +
      `p50 overhead ${(service1.result.p50 - bare1.result.p50).toFixed(1)} ms at c=1 (goal < 15); ` +
      `peak RSS node+browser ${peakRss.toFixed(0)} MiB`,
  );
}

/**
 * Documents and data (docs/benchmarks.md#render): /v1/markdown, /v1/scrape and a /v1/pdf/merge of
 * 10 pages against a bare playwright-core loop doing the same work in the same Chromium (the same
 * Readability and turndown script in the page, the same querySelectorAll reading, ten page.pdf
 * merged with pdf-lib), and a PDF with a footer against a plain PDF, both through the service.
 * Subjects alternate in rounds, as above.
 */
async function documents(
  base: string,
  pageUrl: string,
  bare: (work: (page: Page) => Promise<unknown>) => Promise<void>,
): Promise<void> {
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
    await res.arrayBuffer();
  };
  const markdown = markdownExpression({ mode: 'article', max: 5 * 1024 * 1024 });
  const scrape = pageCallExpression('scrape', {
    elements: [{ selector: '.card div', limit: 100 }],
    max: 5 * 1024 * 1024,
  });
  const bareMerge = async () => {
    const pdfs: Buffer[] = [];
    await load(10, MAX_CONCURRENCY, () =>
      bare(async (page) => {
        pdfs.push(await page.pdf({ format: 'A4', printBackground: true }));
      }),
    );
    const out = await PDFDocument.create();
    for (const pdf of pdfs) {
      const source = await PDFDocument.load(pdf);
      for (const p of await out.copyPages(source, source.getPageIndices())) out.addPage(p);
    }
    await out.save();
  };
  const pairs = [
    {
      name: '/v1/markdown',
      service: () => post('/v1/markdown', { url: pageUrl }),
      baseline: () => bare((page) => page.evaluate(markdown)),
      concurrency: MAX_CONCURRENCY,
      jobs: READINGS,
    },
    {
      name: '/v1/scrape',
      service: () => post('/v1/scrape', { url: pageUrl, elements: [{ selector: '.card div' }] }),
      baseline: () => bare((page) => page.evaluate(scrape)),
      concurrency: MAX_CONCURRENCY,
      jobs: READINGS,
    },
    {
      name: '/v1/pdf/merge of 10',
      service: () =>
        post('/v1/pdf/merge', { inputs: Array.from({ length: 10 }, () => ({ url: pageUrl })) }),
      baseline: bareMerge,
      concurrency: 1,
      jobs: Math.max(4, DOCS / 5),
    },
    {
      name: 'PDF with footer',
      service: () =>
        post('/v1/render', { url: pageUrl, format: 'pdf', pdf: { displayHeaderFooter: true } }),
      // Here the baseline is the service's own plain PDF.
      baseline: () => post('/v1/render', { url: pageUrl, format: 'pdf' }),
      against: 'service plain PDF',
      concurrency: MAX_CONCURRENCY,
      jobs: DOCS,
    },
    {
      // The same pair in bare playwright-core: what Chromium itself spends on a header and a
      // footer, the floor under the row above.
      name: 'bare PDF with footer',
      service: () =>
        bare((page) =>
          page.pdf({ format: 'A4', printBackground: true, displayHeaderFooter: true }),
        ),
      baseline: () => bare((page) => page.pdf({ format: 'A4', printBackground: true })),
      against: 'bare plain PDF',
      concurrency: MAX_CONCURRENCY,
      jobs: DOCS,
    },
  ];
  const rows = [];
  const ratios: string[] = [];
  for (const pair of pairs) {
    const { jobs } = pair;
    const round = pair.concurrency === 1 ? 2 : ROUND;
    await load(pair.concurrency, pair.concurrency, pair.service);
    await load(pair.concurrency, pair.concurrency, pair.baseline);
    const [service, baseline] = [new Tally(), new Tally()];
    for (let done = 0; done < jobs; done += round) {
      service.add(await load(round, pair.concurrency, pair.service));
      baseline.add(await load(round, pair.concurrency, pair.baseline));
    }
    const [s, b] = [service.result, baseline.result];
    const against = 'against' in pair ? pair.against : 'bare playwright';
    rows.push(
      {
        subject: pair.name,
        c: pair.concurrency,
        'jobs/s': s.rps,
        'p50 ms': s.p50,
        'p95 ms': s.p95,
      },
      {
        subject: `  ${against}`,
        c: pair.concurrency,
        'jobs/s': b.rps,
        'p50 ms': b.p50,
        'p95 ms': b.p95,
      },
    );
    ratios.push(
      pair.name === 'PDF with footer'
        ? `footer PDF takes ${(b.rps / s.rps).toFixed(2)}× a plain PDF (goal ≤ 1.1)`
        : pair.name === 'bare PDF with footer'
          ? `in bare Chromium ${(b.rps / s.rps).toFixed(2)}×`
          : `${pair.name} ${(s.rps / b.rps).toFixed(2)} of bare`,
    );
  }
  printTable(
    `render documents: ${READINGS} markdown and scrape jobs per subject, ${DOCS} PDFs, ${Math.max(4, DOCS / 5)} merges`,
    rows,
  );
  printSummary('render documents', `${ratios.join('; ')} (goal ≥ 0.9 for markdown and scrape)`);
}

if (process.argv.includes('--serve')) await serve();
else await main();
