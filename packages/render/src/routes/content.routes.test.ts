import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { html, startFixtureServer, type FixtureServer } from '../test-support/fixture-server.js';
import { pngSize } from '../test-support/png.js';
import { startService, type TestService } from '../test-support/service.js';

// The content endpoints against real Chromium and local pages (docs/render.md#content-endpoints).

let svc: TestService;
let site: FixtureServer;

const MAX_CONTENT_BYTES = 64 * 1024;

const ARTICLE = `
<nav class="site-nav"><a href="/">Home</a> <a href="/shop">Shop catalogue</a></nav>
<div class="cookie-banner" role="dialog">We use cookies to track you. <button>Accept all</button></div>
<main><article>
  <h1>Growing tomatoes on a balcony</h1>
  <p class="byline">By Ada Gardener</p>
  <p>Tomatoes need sun, water and patience. This guide walks through a season on a small
  balcony in Copenhagen, from seed to harvest, with the varieties that did well and those that
  did not. Read the <a href="guide/soil.html">soil guide</a> first.</p>
  <h2>What you need</h2>
  <ul><li>A pot of at least 20 litres</li><li>Seeds of a cherry variety</li><li>A bamboo cane</li></ul>
  <p>Everything here can be bought at a garden centre for less than the price of a dinner out,
  and most of it lasts for years. The pot matters most: too small and the plant starves.</p>
  <h2>Yields by variety</h2>
  <table><thead><tr><th>Variety</th><th>Kilograms</th></tr></thead>
  <tbody><tr><td>Sungold</td><td>4.2</td></tr><tr><td>Gardener's Delight</td><td>3.1</td></tr></tbody></table>
  <h2>Watering schedule</h2>
  <p>A small script waters the plants when the soil is dry; this is the whole of it, and it has
  run for three summers without a change.</p>
  <pre><code class="language-js">if (soil.moisture &lt; 0.3) pump.run(20);</code></pre>
  <p style="display:none">Hidden affiliate disclaimer</p>
  <p>By the end of August the plants had given more than seven kilograms in all, which is more
  than two people could eat, so the neighbours had some too.</p>
</article></main>
<footer class="site-footer">Copyright Balcony Gardens ApS, all rights reserved</footer>
<script>document.title = document.title; var trackingPixel = "SCRIPT-TEXT";</script>`;

// Links resolve against <base>, not against the page's own URL.
const LINKS = `
<a href="a.html" rel="next">First</a>
<a href="../b.html">Second</a>
<a href="a.html">First again</a>
<a href="javascript:void(0)">Script link</a>
<a href="https://example.com/out" rel="nofollow noopener">Outside</a>
<a href="hidden.html" style="display:none">Hidden</a>
<a href="/img.html"><img src="x.png" alt="Picture link"></a>`;

const TABLE = `
<table id="stock" style="border-collapse:collapse">
  <tr data-sku="A1" class="row"><td style="height:30px">Apples</td><td>12</td></tr>
  <tr data-sku="B2" class="row"><td style="height:30px">Bananas</td><td>7</td></tr>
  <tr data-sku="C3" class="row"><td style="height:30px">Cherries</td><td>40</td></tr>
</table>`;

// A page whose scripts try to change what the service reads.
const HOSTILE = `
<h1>Real heading</h1><p class="x">Real text</p><a href="/real">Real link</a>
<script>
  document.querySelectorAll = () => [];
  Document.prototype.querySelectorAll = () => [];
  Element.prototype.querySelectorAll = () => [];
  Object.defineProperty(Node.prototype, 'textContent', { get: () => 'FAKE', configurable: true });
  Object.defineProperty(HTMLElement.prototype, 'innerText', { get: () => 'FAKE', configurable: true });
  Object.defineProperty(Element.prototype, 'outerHTML', { get: () => 'FAKE', configurable: true });
  Object.defineProperty(document, 'title', { get: () => 'FAKE', configurable: true });
  JSON.stringify = () => '"FAKE"';
  JSON.parse = () => 'FAKE';
  Array.prototype.push = function () { return 0; };
</script>`;

beforeAll(async () => {
  site = await startFixtureServer({
    '/article': html(
      ARTICLE,
      '<title>Tomatoes | Balcony Gardens</title><meta name="author" content="Ada Gardener">',
    ),
    '/docs/page': html(LINKS, '<base href="/docs/guide/"><title>Links</title>'),
    '/table': html(TABLE, '<title>Stock</title><style>body{margin:0}</style>'),
    '/hostile': html(HOSTILE, '<title>Real title</title>'),
    '/big': html(`<p>${'Blåbær '.repeat(20_000)}</p>`, '<title>Big</title>'),
    '/moved': (_req, res) => {
      res.writeHead(302, { location: '/article' });
      res.end();
    },
    '/gone': (_req, res) => {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('<title>Not here</title><p>Nothing</p>');
    },
  });
  svc = await startService({
    ALLOWED_HOSTS: 'localhost',
    MAX_CONTENT_BYTES: String(MAX_CONTENT_BYTES),
  });
});

afterAll(async () => {
  await svc.close();
  await site.close();
});

async function ok(path: string, body: Record<string, unknown>) {
  const answer = await svc.post(path, body);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body;
}

describe('POST /v1/content', () => {
  it('answers the DOM after the waits, the final URL, the title and the status', async () => {
    const body = await ok('/v1/content', { url: `${site.origin}/moved` });
    expect(body.url).toBe(`${site.origin}/article`);
    expect(body.title).toBe('Tomatoes | Balcony Gardens');
    expect(body.status).toBe(200);
    expect(body.truncated).toBe(false);
    expect(body.html).toMatch(/^<!DOCTYPE html><html><head>/);
    expect(body.html).toContain('<h2>What you need</h2>');
    expect(body.artifact).toBeUndefined();
    const gone = await ok('/v1/content', { url: `${site.origin}/gone` });
    expect(gone.status).toBe(404);
  });

  it('reads html input, and stores the text as an artifact with return url', async () => {
    const body = await ok('/v1/content', {
      html: '<title>Inline</title><p id="late"></p><script>document.getElementById("late").textContent = "added by script"</script>',
      return: 'url',
      labels: { job: 'content' },
    });
    expect(body.status).toBeNull();
    expect(body.title).toBe('Inline');
    expect(body.html).toContain('<p id="late">added by script</p>');
    const artifact = body.artifact as { url: string; contentType: string; labels: object };
    expect(artifact.contentType).toBe('text/html; charset=utf-8');
    expect(artifact.labels).toEqual({ job: 'content' });
    expect(await (await svc.call(artifact.url)).text()).toBe(body.html);
  });

  it('cuts the text at MAX_CONTENT_BYTES, never inside a character, and says so', async () => {
    const body = await ok('/v1/content', { url: `${site.origin}/big` });
    expect(body.truncated).toBe(true);
    const bytes = Buffer.byteLength(body.html as string);
    expect(bytes).toBeLessThanOrEqual(MAX_CONTENT_BYTES);
    expect(bytes).toBeGreaterThan(MAX_CONTENT_BYTES - 4);
    expect(body.html as string).not.toContain('\uFFFD');
  });
});

describe('POST /v1/markdown', () => {
  it("converts the article: headings, list, table and code, without the site's chrome", async () => {
    const body = await ok('/v1/markdown', { url: `${site.origin}/article` });
    const md = body.markdown as string;
    expect(body.mode).toBe('article');
    expect(md).toMatch(/^# /);
    expect(md).toContain('## What you need');
    expect(md).toMatch(/^- A pot of at least 20 litres$/m);
    expect(md).toMatch(/^\| Variety \| Kilograms \|$/m);
    expect(md).toMatch(/^\| Sungold \| 4\.2 \|$/m);
    expect(md).toContain('```js\nif (soil.moisture < 0.3) pump.run(20);\n```');
    // Links come out absolute.
    expect(md).toContain(`[soil guide](${site.origin}/guide/soil.html)`);
    for (const chrome of [
      'Shop catalogue',
      'cookies',
      'Copyright',
      'Hidden affiliate',
      'SCRIPT-TEXT',
    ]) {
      expect(md).not.toContain(chrome);
    }
    expect(body.byline).toContain('Ada Gardener');
  });

  it('with mode full keeps the navigation but still no hidden text or scripts', async () => {
    const body = await ok('/v1/markdown', { url: `${site.origin}/article`, mode: 'full' });
    const md = body.markdown as string;
    expect(body.mode).toBe('full');
    expect(md).toContain(`[Shop catalogue](${site.origin}/shop)`);
    expect(md).toContain('## Yields by variety');
    expect(md).not.toContain('Hidden affiliate');
    expect(md).not.toContain('SCRIPT-TEXT');
  });
});

describe('POST /v1/links', () => {
  it('resolves every link against <base>, deduplicated, in document order', async () => {
    const body = await ok('/v1/links', { url: `${site.origin}/docs/page` });
    expect(body.links).toEqual([
      { href: `${site.origin}/docs/guide/a.html`, text: 'First', rel: 'next' },
      { href: `${site.origin}/docs/b.html`, text: 'Second', rel: '' },
      { href: 'https://example.com/out', text: 'Outside', rel: 'nofollow noopener' },
      { href: `${site.origin}/docs/guide/hidden.html`, text: 'Hidden', rel: '' },
      { href: `${site.origin}/img.html`, text: 'Picture link', rel: '' },
    ]);
  });

  it('keeps only visible, same-origin links when asked', async () => {
    const body = await ok('/v1/links', {
      url: `${site.origin}/docs/page`,
      visibleOnly: true,
      sameOriginOnly: true,
    });
    expect((body.links as { href: string }[]).map((l) => l.href)).toEqual([
      `${site.origin}/docs/guide/a.html`,
      `${site.origin}/docs/b.html`,
      `${site.origin}/img.html`,
    ]);
  });
});

describe('POST /v1/scrape', () => {
  it('answers text, html, the attributes asked for and a box per match', async () => {
    const body = await ok('/v1/scrape', {
      url: `${site.origin}/table`,
      elements: [
        { selector: 'tr.row', attributes: ['data-sku', 'absent'], limit: 2 },
        { selector: '#stock td:first-child' },
        { selector: '.nothing-matches' },
      ],
    });
    const [rows, cells, none] = body.results as {
      selector: string;
      matches: {
        text: string;
        html: string;
        attributes: Record<string, string>;
        box: { x: number; y: number; width: number; height: number };
      }[];
    }[];
    expect(rows?.selector).toBe('tr.row');
    expect(rows?.matches.map((m) => m.attributes)).toEqual([
      { 'data-sku': 'A1' },
      { 'data-sku': 'B2' },
    ]);
    expect(rows?.matches[0]?.text).toBe('Apples 12');
    expect(rows?.matches[0]?.html).toMatch(/^<tr data-sku="A1" class="row">/);
    const [first, second] = rows?.matches ?? [];
    expect(first?.box.x).toBe(0);
    expect(first?.box.width).toBeGreaterThan(50);
    expect(first?.box.height).toBeGreaterThanOrEqual(30);
    expect(second?.box.y).toBeCloseTo((first?.box.y ?? 0) + (first?.box.height ?? 0), 0);
    // Without `attributes`, all of them.
    expect(cells?.matches.map((m) => m.text)).toEqual(['Apples', 'Bananas', 'Cherries']);
    expect(cells?.matches[0]?.attributes).toEqual({ style: 'height:30px' });
    expect(none).toEqual({ selector: '.nothing-matches', matches: [] });
  });

  it('refuses an invalid selector with a 400 naming it', async () => {
    const { status, body } = await svc.post('/v1/scrape', {
      url: `${site.origin}/table`,
      elements: [{ selector: 'tr' }, { selector: 'td[[' }],
    });
    expect(status).toBe(400);
    expect(body.error).toBe('elements[1].selector "td[[" is not a valid CSS selector');
  });
});

describe('a page that rewrites the DOM API, textContent and JSON', () => {
  it('cannot change what any endpoint answers', async () => {
    const url = `${site.origin}/hostile`;
    const content = await ok('/v1/content', { url });
    expect(content.title).toBe('Real title');
    expect(content.html).toContain('<h1>Real heading</h1><p class="x">Real text</p>');
    const links = await ok('/v1/links', { url });
    expect(links.links).toEqual([{ href: `${site.origin}/real`, text: 'Real link', rel: '' }]);
    const scrape = await ok('/v1/scrape', { url, elements: [{ selector: 'p.x' }] });
    expect(scrape.results).toEqual([
      {
        selector: 'p.x',
        matches: [
          expect.objectContaining({ text: 'Real text', html: '<p class="x">Real text</p>' }),
        ],
      },
    ]);
    const md = await ok('/v1/markdown', { url, mode: 'full' });
    expect(md.markdown).toContain('# Real heading');
    expect(md.markdown).toContain('Real text');
    expect(md.markdown).not.toContain('FAKE');
  });
});

describe('POST /v1/snapshot', () => {
  it('answers the content and a screenshot of one navigation', async () => {
    const body = await ok('/v1/snapshot', {
      url: `${site.origin}/table`,
      return: 'base64',
      profile: { viewport: { width: 400, height: 300 } },
    });
    expect(body.title).toBe('Stock');
    expect(body.html).toContain('data-sku="C3"');
    const shot = body.screenshot as { contentType: string; base64: string; bytes: number };
    expect(shot.contentType).toBe('image/png');
    expect(pngSize(Buffer.from(shot.base64, 'base64'))).toEqual({ width: 400, height: 300 });
    expect(site.hits.get('/table')).toBeGreaterThanOrEqual(1);
    const stored = await ok('/v1/snapshot', { url: `${site.origin}/table`, format: 'jpeg' });
    const artifact = (stored.screenshot as { artifact: { contentType: string } }).artifact;
    expect(artifact.contentType).toBe('image/jpeg');
  });
});

describe('every content endpoint', () => {
  const endpoints = [
    ['/v1/content', {}],
    ['/v1/markdown', {}],
    ['/v1/links', {}],
    ['/v1/scrape', { elements: [{ selector: 'p' }] }],
    ['/v1/snapshot', {}],
  ] as const;

  it.each(endpoints)(
    '%s refuses a private address before loading anything',
    async (path, extra) => {
      const { status, body } = await svc.post(path, {
        url: `http://127.0.0.1:${site.port}/table`,
        ...extra,
      });
      expect(status).toBe(400);
      expect(body.error).toMatch(
        /^url: host 127\.0\.0\.1 resolves to 127\.0\.0\.1, which is in the refused range loopback/,
      );
    },
  );

  it.each(endpoints)('%s refuses a bad selector naming it', async (path, extra) => {
    const { status, body } = await svc.post(path, {
      url: `${site.origin}/table`,
      waitForSelector: 'p[[',
      ...extra,
    });
    expect(status).toBe(400);
    expect(body.error).toMatch(/^waitForSelector is not a valid selector/);
  });

  it.each(endpoints)('%s refuses a body without url or html', async (path, extra) => {
    const { status, body } = await svc.post(path, { ...extra });
    expect(status).toBe(400);
    expect(body.error).toBe('url or html is required');
  });

  it('counts each kind in the render duration histogram', async () => {
    const metrics = await (await svc.call('/metrics')).text();
    for (const kind of ['content', 'markdown', 'links', 'scrape', 'snapshot']) {
      expect(metrics).toMatch(
        new RegExp(`havn_render_duration_seconds_count\\{format="${kind}"\\} [1-9]`),
      );
    }
  });
});
