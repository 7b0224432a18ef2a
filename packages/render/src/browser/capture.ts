import { errors, type BrowserContext, type Page } from 'playwright-core';
import { capturePixelsProblem, type CaptureLimits } from '../capture-limits.js';
import { DEFAULT_PAPER, type Profile } from '../profiles.js';
import { profileContextOptions, profileUserAgent } from './profile-context.js';
import {
  CaptureFailedError,
  CaptureInputError,
  CaptureTimeoutError,
  NavigationError,
  PageCrashedError,
} from './capture-errors.js';
import { navigationReason } from './playwright-text.js';
import { screenshotOnPaintedFrame } from './screenshot-retry.js';
import type { StorageState } from './storage-state.js';
import type { WarmBrowser } from './warm-browser.js';

// One capture in its own browser context: context → page → navigate or set content
// → waits → styles → capture → close, with every step bounded by the render's deadline and the
// context closed in `finally`, or at once when the render is aborted (deadline or client gone).

export type WaitUntil = 'load' | 'domcontentloaded' | 'networkidle' | 'commit';
export type Format = 'png' | 'jpeg' | 'pdf';

/**
 * A browser-automation cookie object (`cookies` in docs/render.md#post-v1render), as a render and
 * a session both set it before the first navigation.
 */
export interface Cookie {
  name: string;
  value: string;
  url?: string | undefined;
  domain?: string | undefined;
  path?: string | undefined;
  expires?: number | undefined;
  httpOnly?: boolean | undefined;
  secure?: boolean | undefined;
  sameSite?: 'Strict' | 'Lax' | 'None' | undefined;
}

/** What Chromium is told when it prints (docs/render.md#pdf-options); paper comes from the profile. */
export interface PdfPrint {
  scale?: number | undefined;
  pageRanges?: string | undefined;
  preferCSSPageSize?: boolean | undefined;
  printBackground: boolean;
  displayHeaderFooter?: boolean | undefined;
  headerTemplate?: string | undefined;
  footerTemplate?: string | undefined;
  outline?: boolean | undefined;
  tagged?: boolean | undefined;
}

export interface CaptureJob {
  target: { url: string } | { html: string; baseUrl?: string | undefined };
  profile: Profile;
  format: Format;
  quality?: number | undefined;
  fullPage?: boolean | undefined;
  selector?: string | undefined;
  clip?: { x: number; y: number; width: number; height: number } | undefined;
  omitBackground?: boolean | undefined;
  waitUntil: WaitUntil;
  waitForSelector?: string | undefined;
  waitForTimeout?: number | undefined;
  waitForFonts: boolean;
  styles?: string | undefined;
  headers?: Record<string, string> | undefined;
  cookies?: Cookie[] | undefined;
  userAgent?: string | undefined;
  ignoreHttpsErrors: boolean;
  /** Cookies, localStorage and IndexedDB the context starts with (a saved browser state). */
  storageState?: StorageState | undefined;
  /** Print options when format is pdf; absent means the defaults (backgrounds printed). */
  pdf?: PdfPrint | undefined;
}

export interface CaptureControl {
  /** The proxy this render's context goes through. */
  proxyUrl: string;
  /** Epoch ms by which the capture must be finished. */
  deadline: number;
  /** Aborting closes the context at once. */
  signal: AbortSignal;
  /**
   * Called with the URLs the main frame requested (every redirect hop) after navigation and
   * before capture; throws to fail the render (a hop the proxy refused or could not reach).
   */
  checkNavigation: (urls: readonly string[]) => void;
  /** MAX_CAPTURE_PIXELS and friends: a capture larger than that is refused before it is taken. */
  limits: CaptureLimits;
}

function remaining(deadline: number): number {
  return Math.max(1, deadline - Date.now());
}

function escapeAttr(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

/** The html with a `<base href>` as the first thing in <head>, so relative assets resolve. */
export function withBase(html: string, baseUrl: string | undefined): string {
  if (!baseUrl) return html;
  const tag = `<base href="${escapeAttr(baseUrl)}">`;
  const head = /<head(\s[^>]*)?>/i.exec(html);
  if (head)
    return (
      html.slice(0, head.index + head[0].length) + tag + html.slice(head.index + head[0].length)
    );
  return tag + html;
}

/** A page that has navigated and settled, handed to the work a render does with it. */
export interface LoadedPage {
  page: Page;
  /** HTTP status of the main response; null for `html` (nothing was fetched). */
  status: number | null;
}

/** Work done on a loaded page, inside the render's context and deadline. */
export type PageAction<T> = (loaded: LoadedPage, control: CaptureControl) => Promise<T>;

/**
 * Opens the job's page in a fresh context (navigation, waits, styles, the private-network checks),
 * runs `act` on it, and closes the context: the one path every render and extraction takes.
 */
export async function onPage<T>(
  browser: WarmBrowser,
  job: CaptureJob,
  control: CaptureControl,
  act: PageAction<T>,
): Promise<T> {
  const { profile } = job;
  const userAgent = job.userAgent ?? profileUserAgent(await browser.version(), profile);
  const { context, gone, close } = await browser.newContext(
    {
      ...profileContextOptions(profile),
      userAgent,
      ...(job.headers !== undefined && { extraHTTPHeaders: job.headers }),
      ignoreHTTPSErrors: job.ignoreHttpsErrors,
      proxy: { server: control.proxyUrl },
      acceptDownloads: false,
      ...(job.storageState !== undefined && { storageState: job.storageState }),
    },
    control.signal,
  );
  const onAbort = () => void close();
  control.signal.addEventListener('abort', onAbort, { once: true });
  const state = { pageCrashed: false };
  try {
    if (control.signal.aborted) throw new CaptureTimeoutError();
    const page = await context.newPage();
    page.on('crash', () => {
      state.pageCrashed = true;
    });
    return await run(context, page, job, control, act);
  } catch (err) {
    const browserGone = gone();
    if (browserGone) throw browserGone;
    if (state.pageCrashed) throw new PageCrashedError();
    if (err instanceof errors.TimeoutError) throw new CaptureTimeoutError();
    throw err;
  } finally {
    control.signal.removeEventListener('abort', onAbort);
    await close();
  }
}

async function run<T>(
  context: BrowserContext,
  page: Page,
  job: CaptureJob,
  control: CaptureControl,
  act: PageAction<T>,
): Promise<T> {
  const { deadline } = control;
  if (job.cookies && job.cookies.length > 0) {
    try {
      await context.addCookies(job.cookies);
    } catch (err) {
      throw new CaptureInputError('cookies', `are invalid: ${navigationReason(err)}`);
    }
  }
  const navigations: string[] = [];
  page.on('request', (request) => {
    try {
      if (request.isNavigationRequest() && request.frame() === page.mainFrame()) {
        navigations.push(request.url());
      }
    } catch {
      // A request without a frame (service worker): not a main-frame navigation.
    }
  });
  let status: number | null = null;
  try {
    if ('url' in job.target) {
      const response = await page.goto(job.target.url, {
        waitUntil: job.waitUntil,
        timeout: remaining(deadline),
      });
      status = response?.status() ?? null;
    } else {
      await page.setContent(withBase(job.target.html, job.target.baseUrl), {
        waitUntil: job.waitUntil,
        timeout: remaining(deadline),
      });
    }
  } catch (err) {
    control.checkNavigation(navigations);
    if (err instanceof errors.TimeoutError || control.signal.aborted) throw err;
    throw new NavigationError(navigationReason(err));
  }
  try {
    await settle(page, job, control);
  } catch (err) {
    // A page that navigated away mid-wait fails its waits; say why if the proxy knows.
    control.checkNavigation(navigations);
    throw err;
  }
  // A late main-frame navigation (meta refresh, script) must not slip past the policy either.
  control.checkNavigation(navigations);
  try {
    return await act({ page, status }, control);
  } catch (err) {
    if (err instanceof CaptureInputError || err instanceof errors.TimeoutError) throw err;
    if (control.signal.aborted || page.isClosed()) throw err;
    // Chromium's own reason (a surface too large to paint, a PDF it cannot lay out): 502.
    throw new CaptureFailedError(navigationReason(err));
  }
}

/** Refuses a capture of more than MAX_CAPTURE_PIXELS device pixels, naming the field. */
function checkPixels(
  field: string,
  width: number,
  height: number,
  job: CaptureJob,
  limits: CaptureLimits,
): void {
  const problem = capturePixelsProblem(width, height, job.profile.deviceScaleFactor, limits);
  if (problem) throw new CaptureInputError(field, `would capture ${problem}`);
}

/** The screenshot or PDF itself, once the page has settled. */
export async function take(page: Page, job: CaptureJob, control: CaptureControl): Promise<Buffer> {
  const { deadline, limits } = control;
  if (job.format === 'pdf') return print(page, job);
  const shot = {
    type: job.format,
    timeout: remaining(deadline),
    ...(job.format === 'jpeg' && job.quality !== undefined && { quality: job.quality }),
    ...(job.format === 'png' && job.omitBackground && { omitBackground: true }),
  };
  if (job.selector !== undefined) {
    const locator = page.locator(job.selector);
    let count: number;
    try {
      count = await locator.count();
    } catch (err) {
      throw new CaptureInputError('selector', `is not a valid selector: ${navigationReason(err)}`);
    }
    if (count === 0)
      throw new CaptureInputError('selector', `"${job.selector}" matches no element`);
    const box = await locator.first().boundingBox({ timeout: remaining(deadline) });
    if (box) checkPixels('selector', box.width, box.height, job, limits);
    return screenshotOnPaintedFrame(page, () => locator.first().screenshot(shot));
  }
  if (job.clip !== undefined) checkPixels('clip', job.clip.width, job.clip.height, job, limits);
  if (job.fullPage) {
    const [width, height] = await page.evaluate<[number, number]>(
      '[document.documentElement.scrollWidth, document.documentElement.scrollHeight]',
    );
    checkPixels('fullPage', Math.max(width, job.profile.viewport.width), height, job, limits);
  }
  return screenshotOnPaintedFrame(page, () =>
    page.screenshot({
      ...shot,
      fullPage: job.fullPage ?? false,
      ...(job.clip !== undefined && { clip: job.clip }),
    }),
  );
}

/** Prints the page on the profile's paper with the request's print options. */
async function print(page: Page, job: CaptureJob): Promise<Buffer> {
  const paper = job.profile.paper ?? DEFAULT_PAPER;
  const { printBackground = true, ...options } = job.pdf ?? {};
  try {
    return await page.pdf({
      ...(paper.format !== undefined && { format: paper.format }),
      ...(paper.width !== undefined && { width: paper.width }),
      ...(paper.height !== undefined && { height: paper.height }),
      landscape: paper.landscape ?? false,
      margin: paper.margin,
      printBackground,
      // Only the options given: Chromium's defaults stand for the rest.
      ...Object.fromEntries(
        Object.entries(options as Record<string, unknown>).filter(([, v]) => v !== undefined),
      ),
    });
  } catch (err) {
    // A range past the last page is the request's mistake, not Chromium's.
    if (/page range/i.test(navigationReason(err))) {
      throw new CaptureInputError(
        'pdf.pageRanges',
        `is outside the document: ${job.pdf?.pageRanges ?? ''}`,
      );
    }
    throw err;
  }
}

/** The waits between navigation and capture: selector, styles, fonts, flat wait. */
async function settle(page: Page, job: CaptureJob, control: CaptureControl): Promise<void> {
  const { deadline } = control;
  if (job.waitForSelector !== undefined) {
    try {
      await page.waitForSelector(job.waitForSelector, { timeout: remaining(deadline) });
    } catch (err) {
      if (err instanceof errors.TimeoutError || control.signal.aborted) throw err;
      throw new CaptureInputError(
        'waitForSelector',
        `is not a valid selector: ${navigationReason(err)}`,
      );
    }
  }
  if (job.styles !== undefined) await page.addStyleTag({ content: job.styles });
  // Image captures await document.fonts.ready themselves (Playwright's screenshot does), so the
  // explicit wait is only needed before printing; skipping it saves a round trip per render.
  if (job.waitForFonts && job.format === 'pdf') {
    // A document replaced mid-wait (script navigation) has no fonts to wait for: not a failure.
    await page.evaluate('document.fonts.ready.then(() => undefined)').catch((err: unknown) => {
      if (err instanceof errors.TimeoutError || control.signal.aborted) throw err;
    });
  }
  if (job.waitForTimeout) {
    await page.waitForTimeout(Math.min(job.waitForTimeout, remaining(deadline)));
  }
}
