import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { html, startFixtureServer, type FixtureServer } from '../test-support/fixture-server.js';
import { onPdf, outlineTitles, pdfInfo, pdfPages, qpdfCheck } from '../test-support/pdf-tools.js';
import { startService, type TestService } from '../test-support/service.js';

// The `pdf` options of POST /v1/render (docs/render.md#pdf-options), judged by pdfinfo, pdftotext
// and qpdf against real Chromium.

let svc: TestService;
let site: FixtureServer;

// Three A4 pages, each opening with a heading.
const REPORT = ['Summary', 'Figures', 'Outlook']
  .map(
    (h, i) =>
      `<section style="height:900px;${i > 0 ? 'break-before:page' : ''}"><h1>${h}</h1><h2>${h} detail</h2><p>Text of ${h}.</p></section>`,
  )
  .join('');

beforeAll(async () => {
  site = await startFixtureServer({
    '/report': html(REPORT, '<title>Quarterly report</title><style>body{margin:0}</style>'),
    '/sized': html('<p>Postcard</p>', '<style>@page { size: 100mm 150mm; margin: 0 }</style>'),
  });
  svc = await startService({ ALLOWED_HOSTS: 'localhost' });
});

afterAll(async () => {
  await svc.close();
  await site.close();
});

async function pdf(extra: Record<string, unknown>): Promise<Buffer> {
  const { status, body } = await svc.post('/v1/render', {
    url: `${site.origin}/report`,
    format: 'pdf',
    return: 'base64',
    ...extra,
  });
  expect(status, JSON.stringify(body)).toBe(200);
  const bytes = Buffer.from(body.base64 as string, 'base64');
  await qpdfCheck(bytes);
  return bytes;
}

/** pdfinfo's page size within 2 points (Chromium rounds to its own units). */
function expectSize(info: Map<string, string>, width: number, height: number): void {
  const [w, h] = (info.get('Page size') ?? '').split(/ x | pts/).map(Number);
  expect(Math.abs((w ?? 0) - width), info.get('Page size')).toBeLessThan(2);
  expect(Math.abs((h ?? 0) - height), info.get('Page size')).toBeLessThan(2);
}

describe('POST /v1/render with pdf options', () => {
  it('prints "Page N of M" when the footer is on without a template, landscape and scaled', async () => {
    const bytes = await pdf({ pdf: { displayHeaderFooter: true, landscape: true, scale: 0.5 } });
    const info = await pdfInfo(bytes);
    expect(info.get('Pages')).toBe('3');
    // A4 landscape: 842 × 595 points.
    expectSize(info, 842, 595);
    const pages = await pdfPages(bytes);
    expect(pages).toHaveLength(3);
    for (const [i, text] of pages.entries()) expect(text).toContain(`Page ${i + 1} of 3`);
    // No Chromium default header (the date and the title) above the pages.
    expect(pages[0]).not.toContain('Quarterly report');
  });

  it('fills templates with the page number, total, title and url', async () => {
    const bytes = await pdf({
      pdf: {
        headerTemplate:
          '<div style="font-size:10px;width:100%">HEAD <span class="title"></span></div>',
        footerTemplate:
          '<div style="font-size:10px;width:100%">FOOT <span class="pageNumber"></span>/<span class="totalPages"></span> <span class="url"></span></div>',
      },
    });
    const pages = await pdfPages(bytes);
    expect(pages[0]).toContain('HEAD Quarterly report');
    expect(pages[1]).toContain('FOOT 2/3');
    expect(pages[2]).toContain(`${site.origin}/report`);
  });

  it('prints only the page ranges asked for, and refuses a range past the end naming it', async () => {
    const bytes = await pdf({ pdf: { pageRanges: '2-3' } });
    expect((await pdfInfo(bytes)).get('Pages')).toBe('2');
    expect((await pdfPages(bytes))[0]).toContain('Figures');
    const past = await svc.post('/v1/render', {
      url: `${site.origin}/report`,
      format: 'pdf',
      pdf: { pageRanges: '7' },
    });
    expect(past.status).toBe(400);
    expect(past.body.error).toMatch(/^pdf\.pageRanges /);
  });

  it('writes metadata into the info dictionary and XMP, with an outline and tags', async () => {
    const bytes = await pdf({
      pdf: {
        outline: true,
        tagged: true,
        metadata: {
          title: 'Report Q3 – Ærø',
          author: 'Finance <team>',
          subject: 'Quarter three',
          keywords: ['finance', 'q3'],
          creator: 'Ledger 9',
        },
      },
    });
    const info = await pdfInfo(bytes);
    expect(info.get('Title')).toBe('Report Q3 – Ærø');
    expect(info.get('Author')).toBe('Finance <team>');
    expect(info.get('Subject')).toBe('Quarter three');
    expect(info.get('Keywords')).toBe('finance q3');
    expect(info.get('Creator')).toBe('Ledger 9');
    expect(info.get('Tagged')).toBe('yes');
    const meta = await onPdf(bytes, 'pdfinfo', ['-meta']);
    expect(meta.stdout).toContain('<rdf:li xml:lang="x-default">Report Q3 – Ærø</rdf:li>');
    expect(meta.stdout).toContain('<rdf:li>Finance &lt;team&gt;</rdf:li>');
    expect(meta.stdout).toContain('<pdf:Keywords>finance, q3</pdf:Keywords>');
    expect(meta.stdout).toContain('<xmp:CreatorTool>Ledger 9</xmp:CreatorTool>');
    const outline = await outlineTitles(bytes);
    expect(outline).toEqual(expect.arrayContaining(['Summary', 'Figures detail', 'Outlook']));
    expect(outline.indexOf('Summary')).toBeLessThan(outline.indexOf('Outlook'));
  });

  it("overrides the profile's margins, and lets CSS @page size win when asked", async () => {
    const sized = await pdf({
      url: `${site.origin}/sized`,
      profile: 'a4',
      pdf: { preferCSSPageSize: true, margin: { top: 0, bottom: '0mm' } },
    });
    // 100 mm × 150 mm is 283.46 × 425.2 points.
    expectSize(await pdfInfo(sized), 283, 425);
    const plain = await pdf({ url: `${site.origin}/sized` });
    expectSize(await pdfInfo(plain), 595, 842);
  });

  it.each([
    ['scale 3', { scale: 3 }, /^pdf\.scale must be <= 2/],
    ['scale 0.05', { scale: 0.05 }, /^pdf\.scale must be >= 0\.1/],
    [
      'a footer over the cap',
      { footerTemplate: 'é'.repeat(32 * 1024 + 1) },
      /^pdf\.footerTemplate is 65538 bytes; the limit is 65536/,
    ],
    [
      'a template with the footer off',
      { headerTemplate: '<b>h</b>', displayHeaderFooter: false },
      /^pdf\.headerTemplate needs/,
    ],
    [
      'margins wider than the page',
      { margin: { left: '150mm', right: '100mm' } },
      /^pdf\.margin left and right must leave room/,
    ],
    [
      'a margin that is no length',
      { margin: { top: 'wide' } },
      /^pdf\.margin\.top must be a length/,
    ],
    ['page ranges in words', { pageRanges: 'all' }, /^pdf\.pageRanges must match/],
    [
      'keywords as a string',
      { metadata: { keywords: 'a,b' } },
      /^pdf\.metadata\.keywords must be array/,
    ],
    [
      'equal passwords',
      { encrypt: { ownerPassword: 'same', userPassword: 'same' } },
      /^pdf\.encrypt\.ownerPassword must differ/,
    ],
    [
      'an unknown permission',
      { encrypt: { ownerPassword: 'o', permissions: ['fly'] } },
      /^pdf\.encrypt\.permissions\[0\] must be one of/,
    ],
  ])('refuses %s with a 400 naming the field', async (_name, options, message) => {
    const { status, body } = await svc.post('/v1/render', {
      url: `${site.origin}/report`,
      format: 'pdf',
      pdf: options,
    });
    expect(status).toBe(400);
    expect(body.error).toMatch(message);
  });

  it('refuses pdf options on an image', async () => {
    const { status, body } = await svc.post('/v1/render', {
      url: `${site.origin}/report`,
      pdf: { landscape: true },
    });
    expect(status).toBe(400);
    expect(body.error).toBe('pdf is only valid with format pdf');
  });
});

describe('pdf.encrypt', () => {
  const owner = 'owner-Secret-7f3a9c';
  const user = 'user-Secret-b81e24';

  it('protects with AES-256, grants only the permissions asked, and refuses a wrong password', async () => {
    const { status, body } = await svc.post('/v1/render', {
      url: `${site.origin}/report`,
      format: 'pdf',
      labels: { job: 'protected' },
      pdf: {
        metadata: { title: 'Sealed' },
        encrypt: {
          userPassword: user,
          ownerPassword: owner,
          permissions: ['print', 'accessibility'],
        },
      },
    });
    expect(status, JSON.stringify(body)).toBe(200);
    const id = (body.artifact as { id: string }).id;
    const bytes = Buffer.from(await (await svc.call(`/v1/artifacts/${id}`)).arrayBuffer());
    await qpdfCheck(bytes, user);
    const enc = await onPdf(bytes, 'qpdf', [`--password=${owner}`, '--show-encryption']);
    expect(enc.stdout).toContain('R = 6');
    expect(enc.stdout).toContain('stream encryption method: AESv3');
    expect(enc.stdout).toContain('print high resolution: allowed');
    expect(enc.stdout).toContain('extract for accessibility: allowed');
    expect(enc.stdout).toContain('extract for any purpose: not allowed');
    expect(enc.stdout).toContain('modify other: not allowed');
    expect(enc.stdout).toContain('modify annotations: not allowed');
    // Without the user password the document does not open.
    const wrong = await onPdf(bytes, 'qpdf', ['--password=guess', '--check']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/invalid password/);
    expect((await pdfInfo(bytes, ['-upw', user])).get('Title')).toBe('Sealed');
    // The passwords reach no log line, label or descriptor.
    const descriptor = JSON.stringify(body);
    const listing = await (await svc.call('/v1/artifacts')).text();
    for (const secret of [owner, user]) {
      expect(svc.logs.join('')).not.toContain(secret);
      expect(descriptor).not.toContain(secret);
      expect(listing).not.toContain(secret);
    }
  });

  it('with only an owner password, opens for anyone and keeps the restrictions', async () => {
    const bytes = await pdf({ pdf: { encrypt: { ownerPassword: owner } } });
    const enc = await onPdf(bytes, 'qpdf', ['--show-encryption']);
    expect(enc.stdout).toContain('file encryption method: AESv3');
    expect(enc.stdout).toContain('print high resolution: not allowed');
    expect((await pdfPages(bytes))[0]).toContain('Summary');
  });
  it('answers 500 RENDER_PDF_TOOL_FAILED naming qpdf when it cannot run, the password in no answer or log', async () => {
    const broken = await startService({ QPDF_PATH: '/nonexistent/qpdf' });
    try {
      const res = await broken.post('/v1/render', {
        html: '<p>sealed</p>',
        format: 'pdf',
        pdf: { encrypt: { ownerPassword: owner } },
      });
      expect(res).toEqual({
        status: 500,
        code: 'RENDER_PDF_TOOL_FAILED',
        body: {
          error: "qpdf was not found at /nonexistent/qpdf (install Debian's qpdf or set QPDF_PATH)",
        },
      });
      expect(broken.logs.join('')).not.toContain(owner);
    } finally {
      await broken.close();
    }
  });
});
