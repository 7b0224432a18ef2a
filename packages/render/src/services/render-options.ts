import { renderErrors } from '../errors.js';
import type { CaptureLimits } from '../capture-limits.js';
import type { CaptureJob, PdfPrint } from '../browser/capture.js';
import type { PdfFinish } from '../pdf/pdf-finish.js';
import { paperWith, resolveProfile, type Profile } from '../profiles.js';
import type { PdfOptions, RenderOptions } from '../schemas/render.schema.js';

// The cross-field rules of docs/render.md#post-v1render that a JSON schema cannot say: exclusive
// pairs, fields that only make sense with one format, the HTML size limit. Each answers 400 naming
// the field.

export interface RenderLimits {
  maxHtmlBytes: number;
  allowInsecureTls: boolean;
  renderTimeoutMs: number;
  captureLimits: CaptureLimits;
}

/** A validated request: everything the capture needs except the profile. */
export type PreparedOptions = Omit<CaptureJob, 'profile'> & {
  returnMode: 'url' | 'base64';
  labels: Record<string, string>;
  /** What is done to a printed PDF afterwards (metadata, protection); only with format pdf. */
  pdfFinish?: PdfFinish | undefined;
  /** The saved browser state to start from, by name (services/browser-states.ts opens it). */
  state?: string | undefined;
  /** The request's `pdf.landscape` and `pdf.margin`, laid over the profile's paper. */
  paperOverrides?: Pick<PdfOptions, 'landscape' | 'margin'> | undefined;
};

/** Largest header or footer template, in UTF-8 bytes (docs/render.md#pdf-options). */
export const MAX_TEMPLATE_BYTES = 64 * 1024;

/** Chromium's footer when `displayHeaderFooter` is on without a `footerTemplate`. */
export const DEFAULT_FOOTER =
  '<div style="width:100%;font-size:9px;font-family:sans-serif;text-align:center;color:#444">' +
  'Page <span class="pageNumber"></span> of <span class="totalPages"></span></div>';

function bad(problem: string): never {
  throw renderErrors.error('OPTIONS_INVALID', { problem });
}

export function prepareOptions(o: RenderOptions, limits: RenderLimits): PreparedOptions {
  if (o.url !== undefined && o.html !== undefined) bad('url and html are mutually exclusive');
  if (o.url === undefined && o.html === undefined) bad('url or html is required');
  if (o.baseUrl !== undefined) {
    if (o.html === undefined) bad('baseUrl is only valid with html');
    let base: URL | undefined;
    try {
      base = new URL(o.baseUrl);
    } catch {
      base = undefined;
    }
    if (base?.protocol !== 'http:' && base?.protocol !== 'https:') {
      bad('baseUrl must be an absolute http or https URL');
    }
  }
  if (o.html !== undefined) {
    const size = Buffer.byteLength(o.html);
    if (size > limits.maxHtmlBytes) {
      bad(`html is ${size} bytes; the limit (MAX_HTML_BYTES) is ${limits.maxHtmlBytes}`);
    }
  }
  const format = o.format ?? 'png';
  if (o.quality !== undefined && format !== 'jpeg') bad('quality is only valid with format jpeg');
  if (format === 'pdf') {
    for (const field of ['fullPage', 'selector', 'clip'] as const) {
      if (o[field] !== undefined) bad(`${field} is not valid with format pdf`);
    }
  }
  if (o.selector !== undefined && o.clip !== undefined)
    bad('selector and clip are mutually exclusive');
  if (o.selector !== undefined && o.fullPage) bad('fullPage and selector are mutually exclusive');
  if (o.waitForTimeout !== undefined && o.waitForTimeout >= limits.renderTimeoutMs) {
    bad(`waitForTimeout must be less than RENDER_TIMEOUT_MS (${limits.renderTimeoutMs} ms)`);
  }
  for (const [i, c] of (o.cookies ?? []).entries()) {
    if (c.url === undefined && c.domain === undefined) bad(`cookies[${i}] needs url or domain`);
  }
  if (o.pdf !== undefined && format !== 'pdf') bad('pdf is only valid with format pdf');
  const target = o.url !== undefined ? { url: o.url } : { html: o.html ?? '', baseUrl: o.baseUrl };
  return {
    target,
    format,
    quality: o.quality,
    fullPage: o.fullPage,
    selector: o.selector,
    clip: o.clip,
    omitBackground: o.omitBackground,
    waitUntil: o.waitUntil ?? 'load',
    waitForSelector: o.waitForSelector,
    waitForTimeout: o.waitForTimeout,
    waitForFonts: o.waitForFonts ?? true,
    styles: o.styles,
    headers: o.headers,
    cookies: o.cookies?.map((c) => ({
      ...c,
      path: c.path ?? (c.url === undefined ? '/' : undefined),
    })),
    userAgent: o.userAgent,
    // Honoured only when ALLOW_INSECURE_TLS=1; otherwise ignored.
    ignoreHttpsErrors: (o.insecureTls ?? false) && limits.allowInsecureTls,
    returnMode: o.return ?? 'url',
    labels: { ...o.labels },
    state: o.state,
    ...(o.pdf !== undefined && pdfParts(o.pdf, 'pdf')),
  };
}

/** Splits `pdf` into what Chromium prints, what is laid over the paper, and what is done after. */
export function pdfParts(
  p: PdfOptions,
  field: string,
): Pick<PreparedOptions, 'pdf' | 'pdfFinish' | 'paperOverrides'> {
  for (const name of ['headerTemplate', 'footerTemplate'] as const) {
    const template = p[name];
    if (template === undefined) continue;
    const size = Buffer.byteLength(template);
    if (size > MAX_TEMPLATE_BYTES) {
      bad(`${field}.${name} is ${size} bytes; the limit is ${MAX_TEMPLATE_BYTES}`);
    }
    if (p.displayHeaderFooter === false) {
      bad(`${field}.${name} needs ${field}.displayHeaderFooter (or leave it out)`);
    }
  }
  const { encrypt } = p;
  if (encrypt?.userPassword !== undefined && encrypt.userPassword === encrypt.ownerPassword) {
    bad(`${field}.encrypt.ownerPassword must differ from userPassword`);
  }
  const headerFooter =
    p.displayHeaderFooter ?? (p.headerTemplate !== undefined || p.footerTemplate !== undefined);
  const print: PdfPrint = {
    scale: p.scale,
    pageRanges: p.pageRanges,
    preferCSSPageSize: p.preferCSSPageSize,
    printBackground: p.printBackground ?? true,
    outline: p.outline,
    tagged: p.tagged,
    ...(headerFooter && {
      displayHeaderFooter: true,
      // Chromium's own header (date and title) is not what anyone printing an invoice wants.
      headerTemplate: p.headerTemplate ?? '<span></span>',
      footerTemplate: p.footerTemplate ?? DEFAULT_FOOTER,
    }),
  };
  const finish: PdfFinish = {
    ...(p.metadata !== undefined && { metadata: p.metadata }),
    ...(encrypt !== undefined && {
      encrypt: {
        userPassword: encrypt.userPassword ?? '',
        ownerPassword: encrypt.ownerPassword,
        permissions: encrypt.permissions ?? [],
      },
    }),
  };
  return {
    pdf: print,
    ...(Object.keys(finish).length > 0 && { pdfFinish: finish }),
    ...((p.landscape !== undefined || p.margin !== undefined) && {
      paperOverrides: { landscape: p.landscape, margin: p.margin },
    }),
  };
}

/**
 * The profile of one render: a built-in name or an inline object (400 naming `field`), with the
 * request's `pdf.landscape` and `pdf.margin` laid over its paper (400 naming `pdf.margin…`).
 */
export function renderProfile(
  input: unknown,
  field: string,
  options: Pick<PreparedOptions, 'paperOverrides'>,
  limits: RenderLimits,
  pdfField = 'pdf',
): Profile {
  const profile = resolveProfile(input, field, limits.captureLimits);
  if (!options.paperOverrides) return profile;
  return { ...profile, paper: paperWith(options.paperOverrides, pdfField, profile.paper) };
}

export const CONTENT_TYPES = {
  png: 'image/png',
  jpeg: 'image/jpeg',
  pdf: 'application/pdf',
} as const;
