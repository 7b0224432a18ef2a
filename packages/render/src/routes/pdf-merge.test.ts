import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { html, startFixtureServer, type FixtureServer } from '../test-support/fixture-server.js';
import { freePort } from '../../../../test-support/ports.js';
import { onPdf, outlineTitles, pdfInfo, pdfPages, qpdfCheck } from '../test-support/pdf-tools.js';
import { startService, type TestService } from '../test-support/service.js';

// POST /v1/pdf/merge (docs/render.md#post-v1pdfmerge), judged by pdfinfo, pdftotext and qpdf.

let svc: TestService;
let site: FixtureServer;

beforeAll(async () => {
  site = await startFixtureServer({
    '/one': html('<h1>Alpha first line</h1>', '<title>Alpha</title>'),
    '/two': html(
      '<h1>Bravo first line</h1><div style="height:1500px"></div><p>Bravo second page</p>',
      '<title>Bravo</title>',
    ),
  });
  svc = await startService({ ALLOWED_HOSTS: 'localhost' });
});

afterAll(async () => {
  await svc.close();
  await site.close();
});

async function stored(body: Record<string, unknown>): Promise<string> {
  const { status, body: answer } = await svc.post('/v1/render', body);
  expect(status, JSON.stringify(answer)).toBe(200);
  return (answer.artifact as { id: string }).id;
}

describe('POST /v1/pdf/merge', () => {
  it('merges renders and a stored PDF in order, with an outline entry per input', async () => {
    const charlie = await stored({
      html: '<title>Charlie</title><h1>Charlie first line</h1>',
      format: 'pdf',
    });
    const { status, body } = await svc.post('/v1/pdf/merge', {
      inputs: [
        { url: `${site.origin}/one`, title: 'Cover letter' },
        { url: `${site.origin}/two`, profile: 'a4' },
        { artifact: charlie },
        { html: '<h1>Delta first line</h1>', pdf: { landscape: true } },
      ],
      pdf: {
        displayHeaderFooter: true,
        metadata: { title: 'Bundle', author: 'Havn tests' },
      },
      return: 'base64',
    });
    expect(status, JSON.stringify(body)).toBe(200);
    const pdf = Buffer.from(body.base64 as string, 'base64');
    await qpdfCheck(pdf);
    expect(body.pages).toBe(5);
    const info = await pdfInfo(pdf);
    expect(info.get('Pages')).toBe('5');
    expect(info.get('Title')).toBe('Bundle');
    expect(info.get('Author')).toBe('Havn tests');
    const pages = await pdfPages(pdf);
    const firstLines = pages.map((p) => p.trim().split('\n')[0]?.trim());
    expect(firstLines).toEqual([
      'Alpha first line',
      'Bravo first line',
      expect.stringContaining('Bravo second page'),
      'Charlie first line',
      'Delta first line',
    ]);
    // The merge's footer applies to every rendered input (not to the stored one).
    expect(pages[1]).toContain('Page 1 of 2');
    expect(pages[2]).toContain('Page 2 of 2');
    expect(pages[3]).not.toContain('Page 1 of 1');
    // An input's own options win: the last page is landscape.
    const last = await pdfInfo(pdf, ['-f', '5', '-l', '5']);
    expect(last.get('Page    5 size')).toMatch(/^841\.\d+ x 595\.\d+|^842\.\d+ x 595\.\d+/);
    expect(await outlineTitles(pdf)).toEqual(['Cover letter', 'Bravo', 'Charlie', 'Document 4']);
  });

  it('protects the merged document and stores it', async () => {
    const { status, body } = await svc.post('/v1/pdf/merge', {
      inputs: [{ url: `${site.origin}/one` }, { url: `${site.origin}/two` }],
      pdf: { encrypt: { ownerPassword: 'merge-owner-8c1d', permissions: ['print'] } },
      labels: { batch: 'm1' },
    });
    expect(status, JSON.stringify(body)).toBe(200);
    const artifact = body.artifact as { url: string; contentType: string; labels: object };
    expect(artifact.contentType).toBe('application/pdf');
    expect(artifact.labels).toEqual({ batch: 'm1' });
    const pdf = Buffer.from(await (await svc.call(artifact.url)).arrayBuffer());
    await qpdfCheck(pdf);
    const enc = await onPdf(pdf, 'qpdf', ['--show-encryption']);
    expect(enc.stdout).toContain('file encryption method: AESv3');
    expect(enc.stdout).toContain('print high resolution: allowed');
    expect(enc.stdout).toContain('extract for any purpose: not allowed');
    expect(svc.logs.join('')).not.toContain('merge-owner-8c1d');
  });

  it.each([
    [
      'an input without url, html or artifact',
      [{ url: `http://localhost/` }, { title: 'nothing' }],
      /^inputs\[1\]: url or html is required$/,
    ],
    [
      'a private address',
      [{ html: '<p>ok</p>' }, { url: 'http://127.0.0.1:9/' }],
      /^inputs\[1\]: url: host 127\.0\.0\.1 resolves to 127\.0\.0\.1, which is in the refused range loopback/,
    ],
    [
      'an unknown artifact',
      [{ artifact: 'no-such-artifact' }],
      /^inputs\[0\]: artifact "no-such-artifact" does not exist or has expired$/,
    ],
    [
      'protection on one input',
      [{ html: '<p>x</p>', pdf: { encrypt: { ownerPassword: 'x' } } }],
      /^inputs\[0\]: pdf\.metadata and pdf\.encrypt apply to the merged document/,
    ],
    [
      'a template over the cap on one input',
      [{ html: '<p>x</p>' }, { html: '<p>y</p>', pdf: { headerTemplate: 'h'.repeat(70_000) } }],
      /^inputs\[1\]: pdf\.headerTemplate is 70000 bytes; the limit is 65536$/,
    ],
    [
      'a bad profile',
      [{ html: '<p>x</p>', profile: 'huge' }],
      /^inputs\[0\]: profile "huge" is not a built-in profile/,
    ],
  ])('refuses %s with a 400 naming the input', async (_name, inputs, message) => {
    const { status, body } = await svc.post('/v1/pdf/merge', { inputs });
    expect(status).toBe(400);
    expect(body.error).toMatch(message);
  });

  it('refuses a template over the cap, an outline and a stored image', async () => {
    const big = await svc.post('/v1/pdf/merge', {
      inputs: [{ html: '<p>x</p>' }],
      pdf: { footerTemplate: 'f'.repeat(65_537) },
    });
    expect(big.status).toBe(400);
    expect(big.body.error).toBe('pdf.footerTemplate is 65537 bytes; the limit is 65536');
    const outline = await svc.post('/v1/pdf/merge', {
      inputs: [{ html: '<p>x</p>' }],
      pdf: { outline: true },
    });
    expect(outline.status).toBe(400);
    expect(outline.body.error).toMatch(/^pdf\.outline is not available in a merge/);
    const png = await stored({ html: '<p>image</p>' });
    const image = await svc.post('/v1/pdf/merge', { inputs: [{ artifact: png }] });
    expect(image.status).toBe(400);
    expect(image.body.error).toBe(`inputs[0]: artifact "${png}" is image/png, not a PDF`);
  });

  it('answers 502 naming the input that fails while rendering, and refuses an encrypted input', async () => {
    const closed = await freePort();
    const failed = await svc.post('/v1/pdf/merge', {
      inputs: [{ url: `${site.origin}/one` }, { url: `http://localhost:${closed}/` }],
    });
    expect(failed.status).toBe(502);
    expect(failed.body.error).toMatch(/^inputs\[1\]: navigation failed: /);
    const sealed = await stored({
      html: '<p>sealed</p>',
      format: 'pdf',
      pdf: { encrypt: { ownerPassword: 'o', userPassword: 'u' } },
    });
    const encrypted = await svc.post('/v1/pdf/merge', { inputs: [{ artifact: sealed }] });
    expect(encrypted.status).toBe(400);
    expect(encrypted.body.error).toMatch(/^inputs\[0\]: the PDF is encrypted/);
  });
});
