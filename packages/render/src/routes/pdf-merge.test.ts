import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { html, startFixtureServer, type FixtureServer } from '../test-support/fixture-server.js';
import { freePort } from '../../../../test-support/ports.js';
import {
  onPdf,
  outlineTitles,
  outlineTree,
  parentTreeProblems,
  pdfInfo,
  pdfPages,
  qpdfCheck,
} from '../test-support/pdf-tools.js';
import { startService, type TestService } from '../test-support/service.js';

// POST /v1/pdf/merge (docs/render.md#post-v1pdfmerge), judged by pdfinfo, pdftotext and qpdf.

let svc: TestService;
let site: FixtureServer;

beforeAll(async () => {
  site = await startFixtureServer({
    '/one': html('<h1>Alpha first line</h1>', '<title>Alpha</title>'),
    '/chapters': html(
      '<h1>Chapter one</h1><h2>Section one point one</h2><p>Text</p>' +
        '<h1 style="break-before: page">Chapter two</h1><p>More text</p>',
      '<title>Chapters</title>',
    ),
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
      'a bad selector',
      [{ html: '<p>x</p>' }, { html: '<p>y</p>', waitForSelector: 'p[[' }],
      /^inputs\[1\]: waitForSelector is not a valid selector/,
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

  it("keeps each input's outline beneath its entry, and the tags of all of them in one tree", async () => {
    const report = await stored({
      html: '<title>Report</title><h1>Report heading</h1><p>Report text</p><h2>Report findings</h2>',
      format: 'pdf',
      pdf: { outline: true, tagged: true },
    });
    const { status, body } = await svc.post('/v1/pdf/merge', {
      inputs: [
        { url: `${site.origin}/chapters`, title: 'Guide' },
        { artifact: report },
        {
          html: '<html lang="da"><h1>Bilag overskrift</h1><p>Tekst med <a href="https://example.com/">et link</a></p></html>',
        },
      ],
      pdf: { outline: true, tagged: true },
      return: 'base64',
    });
    expect(status, JSON.stringify(body)).toBe(200);
    const pdf = Buffer.from(body.base64 as string, 'base64');
    await qpdfCheck(pdf);
    // Each input's bookmarks beneath its own entry, pointing at the copied pages.
    expect(await outlineTree(pdf)).toEqual([
      'Guide @1',
      '  Chapter one @1',
      '    Section one point one @1',
      '  Chapter two @2',
      'Report @3',
      '  Report heading @3',
      '    Report findings @3',
      'Document 3 @4',
      '  Bilag overskrift @4',
    ]);
    const info = await pdfInfo(pdf);
    expect(info.get('Tagged')).toBe('yes');
    // One root element, a Part per input in order, each with its own text.
    const tree = await onPdf(pdf, 'pdfinfo', ['-struct-text']);
    expect(tree.stderr).toBe('');
    const lines = tree.stdout.split('\n');
    expect(lines[0]).toBe('Document');
    expect(lines.filter((l) => /^\S/.test(l))).toEqual(['Document']);
    expect(lines.filter((l) => /^ {2}\S/.test(l))).toEqual(['  Part', '  Part', '  Part']);
    const text = tree.stdout.replace(/\s+/g, ' ');
    const order = [
      '"Chapter one"',
      '"Chapter two"',
      '"Report heading"',
      '"Bilag overskrift"',
      '"et link"',
    ];
    const at = order.map((t) => text.indexOf(t));
    expect(
      at.every((i) => i >= 0),
      text,
    ).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    // Every page still finds its elements through the one parent tree.
    expect(await parentTreeProblems(pdf)).toEqual([]);
    // Each Part keeps its language; the document's is the first input's.
    const dump = await onPdf(pdf, 'qpdf', ['--json', '--json-key=qpdf']);
    const objects = (JSON.parse(dump.stdout) as { qpdf: [unknown, Record<string, Obj>] }).qpdf[1];
    type Obj = { value?: Record<string, unknown> };
    const value = (ref: unknown) => objects[`obj:${String(ref)}`]?.value ?? {};
    const catalog = Object.values(objects).find((o) => o.value?.['/Type'] === '/Catalog')?.value;
    const root = value(value(catalog?.['/StructTreeRoot'])['/K']);
    const parts = (root['/K'] as string[]).map((ref) => value(ref)['/Lang']);
    expect(catalog?.['/Lang']).toBe('u:en-US');
    expect(parts).toEqual(['u:en-US', 'u:en-US', 'u:da']);
  });

  it('merges untagged inputs untagged, and refuses one when tags are asked for', async () => {
    const plain = await stored({ html: '<p>Plain stored</p>', format: 'pdf' });
    const mixed = await svc.post('/v1/pdf/merge', {
      inputs: [
        { html: '<h1>Tagged one</h1>', pdf: { tagged: true, outline: true } },
        { artifact: plain },
      ],
      return: 'base64',
    });
    expect(mixed.status, JSON.stringify(mixed.body)).toBe(200);
    const pdf = Buffer.from(mixed.body.base64 as string, 'base64');
    await qpdfCheck(pdf);
    // Half a tree would hide the untagged pages from a screen reader: none at all.
    expect((await pdfInfo(pdf)).get('Tagged')).toBe('no');
    expect(await outlineTree(pdf)).toEqual(['Document 1 @1', '  Tagged one @1', 'Document 2 @2']);
    const refused = await svc.post('/v1/pdf/merge', {
      inputs: [{ html: '<h1>Tagged one</h1>' }, { artifact: plain }],
      pdf: { tagged: true },
    });
    expect(refused.status).toBe(400);
    expect(refused.code).toBe('RENDER_MERGE_INPUT_INVALID');
    expect(refused.body.error).toBe(
      'inputs[1]: the PDF is not tagged, and a tagged merge needs every part tagged (render it with pdf.tagged)',
    );
  });

  it('refuses a template over the cap and a stored image', async () => {
    const big = await svc.post('/v1/pdf/merge', {
      inputs: [{ html: '<p>x</p>' }],
      pdf: { footerTemplate: 'f'.repeat(65_537) },
    });
    expect(big.status).toBe(400);
    expect(big.body.error).toBe('pdf.footerTemplate is 65537 bytes; the limit is 65536');
    const png = await stored({ html: '<p>image</p>' });
    const image = await svc.post('/v1/pdf/merge', { inputs: [{ artifact: png }] });
    expect(image.status).toBe(400);
    expect(image.code).toBe('RENDER_MERGE_ARTIFACT_NOT_PDF');
    expect(image.body.error).toBe(`inputs[0]: artifact "${png}" is image/png, not a PDF`);
  });

  it('answers 502 naming the input that fails while rendering, and refuses an encrypted input', async () => {
    const closed = await freePort();
    const failed = await svc.post('/v1/pdf/merge', {
      inputs: [{ url: `${site.origin}/one` }, { url: `http://localhost:${closed}/` }],
    });
    expect(failed.status).toBe(502);
    expect(failed.code).toBe('RENDER_MERGE_INPUT_FAILED');
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
