import { createReadStream } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { html, startFixtureServer, type FixtureServer } from '../test-support/fixture-server.js';
import { jpegSize, pngSize } from '../test-support/png.js';
import { startService, TEST_TOKEN, type TestService } from '../test-support/service.js';

// POST /v1/render and /v1/render/batch against real Chromium and a local page.

let svc: TestService;
let site: FixtureServer;

beforeAll(async () => {
  site = await startFixtureServer({
    '/box': html(
      '<div id="box" style="position:absolute;left:10px;top:20px;width:150px;height:75px;background:#c00"></div>',
      '<style>body{margin:0;background:#fff}</style>',
    ),
    '/tall': html(
      '<div style="height:2500px;width:100px;background:#0a0"></div>',
      '<style>body{margin:0}</style>',
    ),
    // The element is 123 px wide only when every header, cookie and the user agent arrived.
    '/echo': (req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      const ok =
        req.headers['x-havn-test'] === 'hdr' &&
        (req.headers.cookie ?? '').includes('c=v') &&
        req.headers['user-agent'] === 'HavnTest/1.0';
      res.end(
        `<body style="margin:0"><p id="p" style="margin:0;width:${ok ? 123 : 50}px;height:10px">ok</p></body>`,
      );
    },
    '/hang': () => undefined,
    // A web font that takes a while to arrive (setup installs fonts-liberation).
    '/mono.ttf': (_req, res) => {
      setTimeout(() => {
        // The page is about:blank with a <base>: the font is cross-origin and needs CORS.
        res.writeHead(200, { 'content-type': 'font/ttf', 'access-control-allow-origin': '*' });
        createReadStream('/usr/share/fonts/truetype/liberation/LiberationMono-Regular.ttf').pipe(
          res,
        );
      }, 500);
    },
    '/stuck-image': html('<p>text</p><img src="/hang">'),
    '/data': (_req, res) => {
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"width":77}');
      }, 300);
    },
    '/fetches': html(
      '<div id="w" style="width:10px;height:5px"></div><script>window.addEventListener("load", () => setTimeout(() => fetch("/data").then((r) => r.json()).then((d) => { document.getElementById("w").style.width = d.width + "px"; }), 50));</script>',
      '<style>body{margin:0}</style>',
    ),
    '/late': html(
      '<script>setTimeout(()=>{const d=document.createElement("div");d.id="late";d.textContent="x";document.body.append(d)},300)</script>',
    ),
  });
  svc = await startService({ ALLOWED_HOSTS: 'localhost' });
});

afterAll(async () => {
  await svc.close();
  await site.close();
});

async function renderPng(body: Record<string, unknown>) {
  const { status, body: result } = await svc.post('/v1/render', { return: 'base64', ...body });
  expect(status, JSON.stringify(result)).toBe(200);
  return { result, png: Buffer.from(result.base64 as string, 'base64') };
}

describe('POST /v1/render', () => {
  it('renders a URL at viewport × deviceScaleFactor and stores an artifact', async () => {
    const { status, body } = await svc.post('/v1/render', {
      url: `${site.origin}/box`,
      profile: 'desktop-2x',
      labels: { job: 'a' },
    });
    expect(status).toBe(200);
    expect(body).toMatchObject({ profile: 'desktop-2x', contentType: 'image/png' });
    expect(body.ms).toEqual(expect.any(Number));
    const artifact = body.artifact as Record<string, unknown>;
    expect(artifact).toMatchObject({
      bytes: body.bytes,
      contentType: 'image/png',
      labels: { job: 'a' },
    });
    expect(artifact.url).toBe(`/v1/artifacts/${String(artifact.id)}`);
    expect(artifact.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(body.base64).toBeUndefined();

    const res = await svc.call(String(artifact.url));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('cache-control')).toBe('private, max-age=3600');
    // A render output shows inline, never sniffed, in a sandbox without scripts.
    expect(res.headers.get('content-disposition')).toBe('inline');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toBe("sandbox; default-src 'none'");
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(bytes.length).toBe(body.bytes);
    expect(pngSize(bytes)).toEqual({ width: 2560, height: 1600 });

    // An image tag cannot send a header: ?token= works for artifacts.
    const viaQuery = await fetch(`${svc.base}${String(artifact.url)}?token=${TEST_TOKEN}`);
    expect(viaQuery.status).toBe(200);
    await viaQuery.arrayBuffer();
  });

  it('uses desktop when no profile is given, and mobile profiles at their scale', async () => {
    const desk = await renderPng({ url: `${site.origin}/box` });
    expect(desk.result.profile).toBe('desktop');
    expect(pngSize(desk.png)).toEqual({ width: 1280, height: 800 });
    // A mobile-ready page (meta viewport): without one, Chromium's 980 px layout viewport is scaled
    // to fit and the capture can come out a device pixel short.
    const mobile = await renderPng({
      html: '<meta name="viewport" content="width=device-width"><p>x</p>',
      profile: 'mobile',
    });
    expect(pngSize(mobile.png)).toEqual({ width: 390 * 3, height: 844 * 3 });
  });

  it('takes an inline profile inheriting from desktop or from its name', async () => {
    const a = await renderPng({
      html: '<p>x</p>',
      profile: { viewport: { width: 300, height: 200 } },
    });
    expect(pngSize(a.png)).toEqual({ width: 300, height: 200 });
    expect(a.result.profile).toBe('inline');
    const b = await renderPng({
      html: '<p>x</p>',
      profile: { name: 'mobile', viewport: { width: 200 } },
    });
    expect(b.result.profile).toBe('mobile');
    expect(pngSize(b.png)).toEqual({ width: 600, height: 844 * 3 });
  });

  it('captures the full page, one element, or a clip', async () => {
    const full = await renderPng({ url: `${site.origin}/tall`, fullPage: true });
    expect(pngSize(full.png)).toEqual({ width: 1280, height: 2500 });
    const el = await renderPng({
      url: `${site.origin}/box`,
      selector: '#box',
      profile: 'desktop-2x',
    });
    expect(pngSize(el.png)).toEqual({ width: 300, height: 150 });
    const clip = await renderPng({
      url: `${site.origin}/box`,
      clip: { x: 5, y: 5, width: 40, height: 30 },
    });
    expect(pngSize(clip.png)).toEqual({ width: 40, height: 30 });
  });

  it('renders jpeg with quality and pdf', async () => {
    const { status, body } = await svc.post('/v1/render', {
      html: '<h1>jpeg</h1>',
      format: 'jpeg',
      quality: 40,
      return: 'base64',
      profile: { viewport: { width: 320, height: 240 } },
    });
    expect(status).toBe(200);
    expect(body.contentType).toBe('image/jpeg');
    expect(jpegSize(Buffer.from(body.base64 as string, 'base64'))).toEqual({
      width: 320,
      height: 240,
    });

    const pdf = await svc.post('/v1/render', {
      url: `${site.origin}/box`,
      format: 'pdf',
      profile: 'a4',
      return: 'base64',
    });
    expect(pdf.status).toBe(200);
    expect(pdf.body.contentType).toBe('application/pdf');
    expect(
      Buffer.from(pdf.body.base64 as string, 'base64')
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');
  });

  it('renders transparent PNGs with omitBackground', async () => {
    const { png } = await renderPng({
      html: '<style>html,body{background:transparent}</style><p>x</p>',
      omitBackground: true,
      profile: { viewport: { width: 50, height: 50 } },
    });
    expect(png[25]).toBe(6); // colour type 6: RGBA
  });

  it('sends headers, cookies and the user agent, injects styles, waits for selectors', async () => {
    const { status, body } = await svc.post('/v1/render', {
      url: `${site.origin}/echo`,
      headers: { 'x-havn-test': 'hdr' },
      cookies: [{ name: 'c', value: 'v', url: site.origin }],
      userAgent: 'HavnTest/1.0',
      styles: '#p { height: 40px !important; }',
      selector: '#p',
      return: 'base64',
    });
    expect(status, JSON.stringify(body)).toBe(200);
    expect(pngSize(Buffer.from(body.base64 as string, 'base64'))).toEqual({
      width: 123,
      height: 40,
    });
    const late = await svc.post('/v1/render', {
      url: `${site.origin}/late`,
      waitForSelector: '#late',
      selector: '#late',
    });
    expect(late.status, JSON.stringify(late.body)).toBe(200);
  });

  it('applies the profile: colour scheme, locale, time zone, mobile and touch', async () => {
    // Each check that holds adds its bit to the element's width, which the capture reveals.
    const probe = `<body style="margin:0"><div id="w" style="height:5px"></div><script>
      const bits = [
        matchMedia('(prefers-color-scheme: dark)').matches,
        navigator.language === 'da-DK',
        Intl.DateTimeFormat().resolvedOptions().timeZone === 'Europe/Copenhagen',
        navigator.maxTouchPoints > 0,
        /Mobile/.test(navigator.userAgent),
      ];
      document.getElementById('w').style.width = (1 + bits.reduce((n, b, i) => n + (b ? 2 ** i : 0), 0)) + 'px';
    </script></body>`;
    const width = async (profile: unknown) => {
      const { png } = await renderPng({ html: probe, selector: '#w', profile });
      return pngSize(png).width;
    };
    expect(await width('desktop')).toBe(1 + 2 + 4);
    expect(await width('desktop-dark')).toBe(1 + 1 + 2 + 4);
    expect(await width({ name: 'mobile-dark', deviceScaleFactor: 1 })).toBe(1 + 1 + 2 + 4 + 8 + 16);
    expect(await width({ name: 'tablet', deviceScaleFactor: 1 })).toBe(1 + 2 + 4 + 8);
    expect(await width({ locale: 'en-GB', timezone: 'UTC' })).toBe(1);
  });

  it('honours waitUntil', async () => {
    // The image never arrives: only a gate before `load` can finish.
    const early = await svc.post('/v1/render', {
      url: `${site.origin}/stuck-image`,
      waitUntil: 'domcontentloaded',
    });
    expect(early.status, JSON.stringify(early.body)).toBe(200);
    // A fetch after load changes the element: networkidle waits for it.
    const idle = await renderPng({
      url: `${site.origin}/fetches`,
      waitUntil: 'networkidle',
      selector: '#w',
    });
    expect(pngSize(idle.png).width).toBe(77);
  });

  it('captures text in its web font, even one that arrives late', async () => {
    // Ten "i" at 40 px: 240 px in the monospaced web font, far narrower in any fallback.
    const page = `<style>@font-face{font-family:Probe;src:url(/mono.ttf)}body{margin:0}
      span{font:40px Probe,serif;display:inline-block}</style>
      <span id="t">iiiiiiiiii</span><script>document.fonts.load('40px Probe')</script>`;
    const { png } = await renderPng({
      html: page,
      baseUrl: `${site.origin}/`,
      waitUntil: 'domcontentloaded',
      selector: '#t',
    });
    expect(pngSize(png).width).toBe(240);
  });

  it('resolves relative assets of html against baseUrl', async () => {
    site.hits.delete('/asset.css');
    site.route('/asset.css', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/css' });
      res.end('body{margin:0}');
    });
    const { status } = await svc.post('/v1/render', {
      html: '<html><head><link rel="stylesheet" href="asset.css"></head><body>x</body></html>',
      baseUrl: `${site.origin}/`,
    });
    expect(status).toBe(200);
    expect(site.hits.get('/asset.css')).toBe(1);
  });

  it.each([
    [{}, 'url or html is required'],
    [{ url: 'http://localhost/', html: '<p>' }, 'url and html are mutually exclusive'],
    [{ url: 'http://localhost/', baseUrl: 'http://localhost/' }, 'baseUrl is only valid with html'],
    [{ html: 'x', quality: 50 }, 'quality is only valid with format jpeg'],
    [{ html: 'x', format: 'pdf', fullPage: true }, 'fullPage is not valid with format pdf'],
    [{ html: 'x', format: 'pdf', selector: 'p' }, 'selector is not valid with format pdf'],
    [
      { html: 'x', selector: 'p', clip: { x: 0, y: 0, width: 1, height: 1 } },
      'selector and clip are mutually exclusive',
    ],
    [{ html: 'x', format: 'gif' }, 'format must be one of "png", "jpeg", "pdf"'],
    [{ html: 'x', format: 'jpeg', quality: 101 }, 'quality must be <= 100'],
    [{ html: 'x', profile: 42 }, 'profile must be string or object'],
    [{ html: 'x', clip: { x: 0 } }, "clip must have required property 'y'"],
    [{ html: 'x', headers: { a: 1 } }, 'headers.a must be string'],
    [{ html: 'x', profile: 'nope' }, 'profile "nope" is not a built-in profile'],
    [{ html: 'x', profile: { viewport: { width: -1 } } }, 'profile.viewport.width'],
    [{ html: 'x', profile: { name: 'nope' } }, 'profile.name'],
    [{ html: 'x', profile: { colorScheme: 'blue' } }, 'profile.colorScheme'],
    [{ html: 'x', profile: { timezone: 'Mars/Base' } }, 'profile.timezone'],
    [{ html: 'x', waitUntil: 'never' }, 'waitUntil must be one of "load"'],
    [{ html: 'x', return: 'file' }, 'return must be one of "url", "base64"'],
    [{ html: 'x', selector: '#missing' }, 'selector "#missing" matches no element'],
    [{ url: 'file:///etc/passwd' }, 'the scheme file: is not allowed'],
    [{ url: 'not a url' }, 'url must be an absolute http or https URL'],
  ])('answers 400 naming the field for %j', async (body, message) => {
    const { status, body: error } = await svc.post('/v1/render', body);
    expect(status).toBe(400);
    expect(Object.keys(error)).toEqual(['error']);
    expect(error.error).toContain(message);
  });

  it('ignores unknown fields', async () => {
    const { status } = await svc.post('/v1/render', { html: '<p>x</p>', somethingElse: 1 });
    expect(status).toBe(200);
  });

  it('answers 502 for a navigation that fails', async () => {
    const closed = await startFixtureServer();
    await closed.close();
    const { status, body } = await svc.post('/v1/render', {
      url: `http://localhost:${closed.port}/`,
    });
    expect(status).toBe(502);
    expect(body.error).toMatch(/^navigation failed: /);
  });
});

describe('POST /v1/render/batch', () => {
  it('renders one slot per profile, in order, and isolates failures', async () => {
    const { status, body } = await svc.post('/v1/render/batch', {
      url: `${site.origin}/box`,
      selector: '#box',
      profiles: ['desktop', { name: 'mobile', viewport: { width: 100 } }, 'desktop-2x'],
    });
    expect(status).toBe(200);
    const results = body.results as Record<string, unknown>[];
    expect(results.map((r) => r.profile)).toEqual(['desktop', 'mobile', 'desktop-2x']);
    // The box (150 CSS px wide at x=10) does not fit a 100 px viewport... but element captures
    // scroll, so every slot succeeds; sizes follow each profile's scale.
    const sizes = await Promise.all(
      results.map(async (r) => {
        const res = await svc.call((r.artifact as { url: string }).url);
        return pngSize(Buffer.from(await res.arrayBuffer()));
      }),
    );
    expect(sizes).toEqual([
      { width: 150, height: 75 },
      { width: 450, height: 225 },
      { width: 300, height: 150 },
    ]);
  });

  it('reports a failing profile in its own slot', async () => {
    const { status, body } = await svc.post('/v1/render/batch', {
      html: '<body><script>if (innerWidth < 1200) document.body.innerHTML = ""; else document.body.innerHTML = "<p id=p>x</p>";</script></body>',
      selector: '#p',
      profiles: ['desktop', 'mobile', 'wide'],
    });
    expect(status).toBe(200);
    const results = body.results as Record<string, unknown>[];
    expect(results[0]).toHaveProperty('artifact');
    expect(results[1]).toEqual({ profile: 'mobile', error: 'selector "#p" matches no element' });
    expect(results[2]).toHaveProperty('artifact');
  });

  it('validates every profile before any work', async () => {
    const { status, body } = await svc.post('/v1/render/batch', {
      html: 'x',
      profiles: ['desktop', 'bogus'],
    });
    expect(status).toBe(400);
    expect(body.error).toContain('profiles[1]');
    const empty = await svc.post('/v1/render/batch', { html: 'x', profiles: [] });
    expect(empty.status).toBe(400);
  });
});
