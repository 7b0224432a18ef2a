import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  chromium,
  errors,
  type BrowserContext,
  type BrowserContextOptions,
  type Page,
  type Request,
} from 'playwright-core';
import { profileContextOptions, type ContextProfile } from './profile-context.js';
import { renderErrors } from '../errors.js';
import type { Cookie } from './capture.js';
import { navigationReason, playwrightReason } from './playwright-text.js';
import { ProfileEmulation, type EmulatedProfile } from './profile-emulation.js';
import { screenshotOnPaintedFrame } from './screenshot-retry.js';
import { applyStorageState, readStorageState, type StorageState } from './storage-state.js';
import {
  startPageScreencast,
  type ScreencastOptions,
  type ScreencastFrame,
} from './session-screencast.js';

export type { ScreencastFrame, ScreencastOptions } from './session-screencast.js';

// A browser session's own Chromium (docs/sessions.md). Playwright launches it over its pipe so
// the service can apply the profile, headers and cookies, take screenshots and record; DevTools
// also listens on 127.0.0.1 on a port Chromium picks (port 0), which only the CDP door learns.

/** Everything a session's browser is launched with; the profile fields are a render's. */
export interface SessionBrowserOptions extends ContextProfile {
  executablePath: string;
  /** The policy flags (guard proxy, resolver rules, WebRTC, QUIC, background networking). */
  args: readonly string[];
  /** The browser's whole environment (browser-runtime.ts builds it; nothing is inherited). */
  env: Readonly<Record<string, string>>;
  chromiumSandbox: boolean;
  /** A fresh directory the session owns; Chromium writes DevToolsActivePort into it. */
  userDataDir: string;
  userAgent?: string | undefined;
  headers: Readonly<Record<string, string>>;
  cookies: readonly Cookie[];
  /** A saved browser state to start from, applied before `cookies` (which win over it). */
  state?: StorageState | undefined;
  ignoreHTTPSErrors: boolean;
}

/** What a pooled session browser is launched with: no profile, headers or cookies yet. */
export type PooledBrowserOptions = Pick<
  SessionBrowserOptions,
  'executablePath' | 'args' | 'env' | 'chromiumSandbox' | 'userDataDir'
>;

/** What a session starts from: a saved state, then its own cookies over it. */
type SessionStart = Pick<SessionBrowserOptions, 'cookies' | 'state'>;

/** What a session brings to the pooled browser it claims (docs/sessions.md#the-warm-pool). */
export interface SessionClaim extends EmulatedProfile, SessionStart {
  headers: Readonly<Record<string, string>>;
}

export interface SessionScreenshotOptions {
  selector?: string | undefined;
  fullPage?: boolean | undefined;
  format: 'png' | 'jpeg';
  timeoutMs: number;
}

/** The client closed every page: there is nothing to capture. */
export class NoOpenPageError extends Error {
  constructor() {
    super('the session has no open page');
    this.name = 'NoOpenPageError';
  }
}

/**
 * A session's saved state, then its cookies (which win over it), on the context, the state's
 * storage written through `page`, its page at about:blank. Cookies the browser refuses answer 400
 * naming the field; a state is one the service wrote, so failing to apply it is the service's
 * own failure (500, its reason in the log).
 */
async function startFrom(context: BrowserContext, page: Page, start: SessionStart): Promise<void> {
  if (start.state) await applyStorageState(context, page, start.state);
  if (start.cookies.length > 0) {
    await context.addCookies([...start.cookies]).catch((err: unknown) => {
      throw renderErrors.error('SESSION_INPUT_INVALID', {
        field: 'cookies',
        reason: playwrightReason(err),
      });
    });
  }
}

/** Chromium writes "<port>\n<browser path>" once DevTools listens (port 0 → its own pick). */
async function devToolsEndpoint(userDataDir: string): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    try {
      const [port, path] = (await readFile(join(userDataDir, 'DevToolsActivePort'), 'utf8')).split(
        '\n',
      );
      if (port && path) return `ws://127.0.0.1:${port}${path}`;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    if (attempt >= 40) throw new Error('Chromium did not report its DevTools port');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** One entry of the browser's `/json/list`. */
export interface BrowserTarget {
  id: string;
  type: string;
  title: string;
  url: string;
  description?: string;
  webSocketDebuggerUrl?: string;
}

export interface Screencast {
  stop(): Promise<void>;
}

const CLOSE_EXTRA_PAGE_AFTER_MS = 250;

export class SessionBrowser {
  private current: Page | undefined;
  private readonly targetIds = new WeakMap<Page, string>();
  private readonly pageListeners = new Set<() => void>();
  private closing = false;
  /** A pooled browser's profile, applied by the service's own CDP connection once claimed. */
  private emulation: ProfileEmulation | undefined;

  private constructor(
    private readonly context: BrowserContext,
    /** `ws://127.0.0.1:<port>/devtools/browser/<id>`: never published outside the service. */
    readonly wsEndpoint: string,
  ) {
    for (const page of context.pages()) this.track(page);
    this.current = context.pages().at(-1);
    context.on('page', (page) => {
      this.track(page);
      this.setCurrent(page);
    });
  }

  static async launch(options: SessionBrowserOptions): Promise<SessionBrowser> {
    return SessionBrowser.open(
      options,
      {
        ...profileContextOptions(options),
        ...(options.userAgent === undefined ? {} : { userAgent: options.userAgent }),
        extraHTTPHeaders: { ...options.headers },
        ignoreHTTPSErrors: options.ignoreHTTPSErrors,
      },
      // The profile's user agent for every context, a client's own included.
      options.userAgent === undefined ? [] : [`--user-agent=${options.userAgent}`],
      options,
    );
  }

  /**
   * A browser for the warm pool (docs/sessions.md#the-warm-pool): launched, sandboxed and behind
   * its proxy channel like a session's, with no profile until claim() gives it one. No viewport
   * of Playwright's own, so that the claimed profile's is the only one.
   */
  static async prelaunch(options: PooledBrowserOptions): Promise<SessionBrowser> {
    return SessionBrowser.open(options, { viewport: null }, [], { cookies: [] });
  }

  private static async open(
    options: PooledBrowserOptions,
    contextOptions: BrowserContextOptions,
    extraArgs: readonly string[],
    start: SessionStart,
  ): Promise<SessionBrowser> {
    const context = await chromium.launchPersistentContext(options.userDataDir, {
      executablePath: options.executablePath,
      args: [
        ...options.args,
        '--remote-debugging-address=127.0.0.1',
        '--remote-debugging-port=0',
        ...extraArgs,
      ],
      env: { ...options.env },
      chromiumSandbox: options.chromiumSandbox,
      ...contextOptions,
      acceptDownloads: false,
      // Shutdown is ours: on SIGTERM the recorder stops and the video is stitched before the
      // browser closes (docs/sessions.md#recording); Playwright would otherwise kill it first.
      handleSIGTERM: false,
      handleSIGINT: false,
      handleSIGHUP: false,
      timeout: 30_000,
    });
    try {
      const page = context.pages()[0] ?? (await context.newPage());
      await startFrom(context, page, start);
      return new SessionBrowser(context, await devToolsEndpoint(options.userDataDir));
    } catch (err) {
      await context.close().catch(() => undefined);
      throw err;
    }
  }

  /**
   * Gives a pooled browser its session's profile, headers and cookies, with the answers inside
   * the page a freshly launched one gives (browser/profile-emulation.ts), for every page of every
   * context, now and later.
   */
  async claim(claim: SessionClaim): Promise<void> {
    const page = this.context.pages()[0] ?? (await this.context.newPage());
    const emulate = async (): Promise<void> => {
      this.emulation = await ProfileEmulation.start(this.wsEndpoint, claim);
      // Playwright's own connection sets the colour scheme of each new page to its context's
      // default as it attaches; the page's own setting, through Playwright, makes it the profile's.
      const colorScheme = claim.colorScheme;
      const emulateMedia = (page: Page): void => {
        page.emulateMedia({ colorScheme }).catch(() => undefined);
      };
      this.context.on('page', emulateMedia);
      await Promise.all(this.context.pages().map((page) => page.emulateMedia({ colorScheme })));
      await this.context.setExtraHTTPHeaders({ ...claim.headers });
    };
    // The state goes in alongside the profile: neither waits for the other, and no client is
    // attached before both are in.
    await Promise.all([emulate(), startFrom(this.context, page, claim)]);
  }

  /** The browser's own `/json/version` document (Browser, Protocol-Version, User-Agent, …). */
  async versionInfo(): Promise<Record<string, unknown>> {
    return (await this.devtoolsJson('version')) as Record<string, unknown>;
  }

  /** The browser's own `/json/list`: every target with its id, type, title, url and socket. */
  async targets(): Promise<BrowserTarget[]> {
    return (await this.devtoolsJson('list')) as BrowserTarget[];
  }

  /** The browser's own `/json/protocol`: every domain, command and event it speaks. */
  protocol(): Promise<unknown> {
    return this.devtoolsJson('protocol');
  }

  private async devtoolsJson(path: string): Promise<unknown> {
    const http = this.wsEndpoint.replace(/^ws:/, 'http:').replace(/\/devtools\/.*$/, '');
    // The browser answers on loopback at once; one that does not is wedged (docs/sessions.md#where-the-door-waits).
    const response = await fetch(`${http}/json/${path}`, { signal: AbortSignal.timeout(10_000) });
    if (!response.ok) throw new Error(`browser answered ${response.status} for /json/${path}`);
    return response.json();
  }

  /** The default context's cookies, localStorage and IndexedDB (a state to save). */
  readState(): Promise<StorageState> {
    return readStorageState(this.context);
  }

  /**
   * Downloads whatever the client (docs/sessions.md#downloads): on a connection of the service's
   * own, downloads of the default context, and of every context a client creates without setting
   * a behaviour itself, go to `dir` with events on; `onEvent` hears each `Browser.download*`
   * event as JSON, as the door passes a client's. A context whose client set a behaviour first
   * (`claimed`: Playwright sends `deny` for `acceptDownloads: false`) keeps it.
   */
  async followDownloads(
    dir: string,
    onEvent: (text: string) => void,
    claimed: (browserContextId: string) => boolean,
  ): Promise<void> {
    const browser = this.context.browser();
    if (!browser) return;
    const cdp = await browser.newBrowserCDPSession();
    for (const method of ['Browser.downloadWillBegin', 'Browser.downloadProgress'] as const) {
      cdp.on(method, (params: unknown) => {
        onEvent(JSON.stringify({ method, params }));
      });
    }
    const allow = (browserContextId?: string) =>
      cdp.send('Browser.setDownloadBehavior', {
        behavior: 'allowAndName',
        downloadPath: dir,
        eventsEnabled: true,
        ...(browserContextId !== undefined && { browserContextId }),
      });
    const seen = new Set<string>();
    type Info = { targetInfo: { browserContextId?: string } };
    cdp.on('Target.targetCreated', ({ targetInfo: { browserContextId: id } }: Info) => {
      // A context is seen with its first target, which its client creates after setting (or
      // not) its own behaviour, so a claim is always known by then.
      if (id === undefined || seen.has(id)) return;
      seen.add(id);
      if (!claimed(id)) allow(id).catch(() => undefined);
    });
    await allow();
    await cdp.send('Target.setDiscoverTargets', { discover: true });
  }

  /** Stops a download, in whichever context it runs (a client's own included). */
  async cancelDownload(guid: string): Promise<void> {
    const browser = this.context.browser();
    if (!browser) return;
    const cdp = await browser.newBrowserCDPSession();
    try {
      const { browserContextIds } = (await cdp.send('Target.getBrowserContexts')) as {
        browserContextIds: string[];
      };
      for (const browserContextId of [undefined, ...browserContextIds]) {
        await cdp
          .send('Browser.cancelDownload', { guid, ...(browserContextId && { browserContextId }) })
          .catch(() => undefined);
      }
    } finally {
      await cdp.detach().catch(() => undefined);
    }
  }

  /**
   * Keeps at most `max` pages open across every context, a client's own and popups included
   * (SESSION_MAX_PAGES): a page past it is closed as soon as the browser reports it, and
   * `closed` hears its URL. Returns once the browser reports its targets.
   */
  async limitPages(max: number, closed: (url: string) => void): Promise<void> {
    const browser = this.context.browser();
    if (!browser) return;
    const cdp = await browser.newBrowserCDPSession();
    const open = new Set<string>();
    type Info = { targetInfo: { targetId: string; type: string; url: string } };
    cdp.on('Target.targetCreated', ({ targetInfo: t }: Info) => {
      if (t.type !== 'page') return;
      if (open.size < max) {
        open.add(t.targetId);
        return;
      }
      closed(t.url);
      // Closed once its creation is through: a popup closed while its opener's window.open is
      // still being answered can leave the opener waiting for good.
      setTimeout(() => {
        cdp.send('Target.closeTarget', { targetId: t.targetId }).catch(() => undefined);
      }, CLOSE_EXTRA_PAGE_AFTER_MS);
    });
    cdp.on('Target.targetDestroyed', ({ targetId }: { targetId: string }) => {
      open.delete(targetId);
    });
    await cdp.send('Target.setDiscoverTargets', { discover: true });
  }

  /** Open pages across every context, the client's own included (the descriptor's `pages`). */
  pageCount(): number {
    return this.context.pages().length;
  }

  /** Calls `listener` whenever the current page changes (the recorder follows it). */
  onCurrentPageChange(listener: () => void): () => void {
    this.pageListeners.add(listener);
    return () => this.pageListeners.delete(listener);
  }

  /** Calls `listener` once when the browser goes away for any reason but close(). */
  onExit(listener: () => void): void {
    this.context.on('close', () => {
      if (!this.closing) listener();
    });
  }

  /** A client activated a target (Target.activateTarget / Page.bringToFront). */
  activated(targetId: string): void {
    const page = this.context.pages().find((p) => this.targetIds.get(p) === targetId);
    if (page) this.setCurrent(page);
  }

  /**
   * Navigates the current page. Resolves with every URL the main frame requested (redirect hops
   * included), for the proxy's verdict on each, and why the navigation failed, if it did.
   */
  async navigate(url: string, timeoutMs: number): Promise<{ hops: string[]; failure?: string }> {
    const page = this.currentPage() ?? (await this.context.newPage());
    const hops: string[] = [];
    const onRequest = (request: Request): void => {
      try {
        if (request.isNavigationRequest() && request.frame() === page.mainFrame()) {
          hops.push(request.url());
        }
      } catch {
        // A request without a frame (service worker): not a main-frame navigation.
      }
    };
    page.on('request', onRequest);
    try {
      await page.goto(url, { timeout: timeoutMs, waitUntil: 'load' });
      return { hops };
    } catch (err) {
      if (err instanceof errors.TimeoutError)
        return { hops, failure: `timed out after ${timeoutMs} ms` };
      return { hops, failure: navigationReason(err) };
    } finally {
      page.off('request', onRequest);
    }
  }

  /**
   * The current page, or the element `selector` finds: 400 RENDER_SESSION_NO_PAGE without a page,
   * 400 RENDER_SESSION_SELECTOR_NOT_VISIBLE when no element matching it is visible in time.
   */
  async screenshot(options: SessionScreenshotOptions): Promise<Buffer> {
    const page = this.currentPage();
    if (!page) throw renderErrors.error('SESSION_NO_PAGE');
    const shot = { type: options.format, timeout: options.timeoutMs } as const;
    const { selector } = options;
    if (selector === undefined) {
      return screenshotOnPaintedFrame(page, () =>
        page.screenshot({ ...shot, fullPage: options.fullPage ?? false }),
      );
    }
    const notVisible = () =>
      renderErrors.error('SESSION_SELECTOR_NOT_VISIBLE', { selector: JSON.stringify(selector) });
    try {
      // The element's box at this instant: a page the client keeps animating is never "stable",
      // so Playwright's element screenshot would wait for ever.
      const element = page.locator(selector).first();
      await element.waitFor({ state: 'visible', timeout: options.timeoutMs });
      const box = await element.boundingBox({ timeout: options.timeoutMs });
      if (!box) throw notVisible();
      return await screenshotOnPaintedFrame(page, () =>
        page.screenshot({ ...shot, clip: box, fullPage: true }),
      );
    } catch (err) {
      if (err instanceof errors.TimeoutError) throw notVisible();
      throw err;
    }
  }

  /** A JPEG of the current page as it is now. */
  async still(quality: number): Promise<Buffer> {
    const page = this.currentPage();
    if (!page) throw new NoOpenPageError();
    return page.screenshot({ type: 'jpeg', quality, timeout: 10_000 });
  }

  /**
   * Screencasts the current page on a CDP session of the service's own, so a client stopping its
   * screencast does not stop ours, and moves to whichever page becomes current.
   */
  async startScreencast(
    options: ScreencastOptions,
    onFrame: (frame: ScreencastFrame) => void,
  ): Promise<Screencast> {
    let stopped = false;
    let active: Screencast | undefined;
    let switching: Promise<void> = Promise.resolve();
    const follow = (): void => {
      switching = switching.then(async () => {
        const page = this.currentPage();
        await active?.stop();
        active = undefined;
        if (stopped || !page) return;
        active = await startPageScreencast(this.context, page, options, onFrame).catch(
          () => undefined,
        );
      });
    };
    const unsubscribe = this.onCurrentPageChange(follow);
    follow();
    await switching;
    return {
      stop: async () => {
        stopped = true;
        unsubscribe();
        await switching;
        await active?.stop();
      },
    };
  }

  async close(): Promise<void> {
    this.closing = true;
    this.emulation?.close();
    await this.context.close().catch(() => undefined);
  }

  private currentPage(): Page | undefined {
    if (this.current && !this.current.isClosed()) return this.current;
    return this.context.pages().at(-1);
  }

  private setCurrent(page: Page): void {
    if (this.current === page) return;
    this.current = page;
    for (const listener of this.pageListeners) listener();
  }

  private track(page: Page): void {
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) this.setCurrent(page);
    });
    page.on('close', () => {
      if (this.current === page) {
        this.current = undefined;
        for (const listener of this.pageListeners) listener();
      }
    });
    void this.context
      .newCDPSession(page)
      .then(async (cdp) => {
        const { targetInfo } = await cdp.send('Target.getTargetInfo');
        this.targetIds.set(page, targetInfo.targetId);
        await cdp.detach();
      })
      .catch(() => undefined);
  }
}
