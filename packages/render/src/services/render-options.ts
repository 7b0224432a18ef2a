import type { CaptureLimits } from '../capture-limits.js';
import { HttpError } from '@havn/shared';
import type { CaptureJob } from '../browser/capture.js';
import type { RenderOptions } from '../schemas/render.schema.js';

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
};

function bad(message: string): never {
  throw new HttpError(400, message);
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
  };
}

export const CONTENT_TYPES = {
  png: 'image/png',
  jpeg: 'image/jpeg',
  pdf: 'application/pdf',
} as const;
