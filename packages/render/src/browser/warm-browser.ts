import {
  chromium,
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
} from 'playwright-core';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from '@havn/shared';
import type { BrowserRuntime } from './browser-runtime.js';
import { pageHeapLaunchArgs } from './launch-args.js';

// The warm browser for one-shot renders: launched once, reused, each render isolated in its own
// browser context. A browser that crashes (its process dies) is replaced on the next use, and the
// renders in flight fail with BrowserCrashedError. A browser that stops answering (hung, or
// SIGSTOPped) is found out when a render reaches its deadline and the browser then fails a
// liveness probe: it is killed and replaced, and the renders still on it fail with
// BrowserHungError (docs/operations.md#render).

/** The browser went away while a render was using it. */
export class BrowserCrashedError extends Error {
  constructor() {
    super(
      'the browser crashed during the render; a fresh browser takes the next request, retry it',
    );
    this.name = 'BrowserCrashedError';
  }
}

/** The browser stopped answering while a render was using it, and was killed for it. */
export class BrowserHungError extends Error {
  constructor() {
    super('the browser stopped responding during the render and was replaced; retry the request');
    this.name = 'BrowserHungError';
  }
}

/** The browser could not be started (a missing or broken binary). */
export class BrowserLaunchError extends Error {
  constructor(readonly reason: string) {
    super(`the browser could not be started: ${reason}`);
    this.name = 'BrowserLaunchError';
  }
}

export interface WarmBrowserOptions {
  /** Which binary, under which uid, with which sandbox (docs/render.md#browser-processes). */
  runtime: BrowserRuntime;
  proxyUrl: string;
  log: Logger;
  /**
   * How long the browser may take to answer a liveness probe, or to close a context, before it
   * counts as hung and is killed.
   */
  wedgeTimeoutMs?: number;
  /** Called when the browser went over BROWSER_MAX_MEMORY and was stopped (for /metrics). */
  onOverMemory?: () => void;
  /** V8 heap bound of each page's renderer (PAGE_MAX_HEAP_MB); undefined leaves Chromium's. */
  pageMaxHeapMb?: number | undefined;
}

/**
 * Why a browser is gone: its process died (a crash, the OOM killer, over BROWSER_MAX_MEMORY) or it
 * was killed as hung.
 */
type Gone = 'crashed' | 'hung';

interface Live {
  browser: Browser;
  pid: number | undefined;
  gone: Gone | undefined;
  /** True once the browser went over BROWSER_MAX_MEMORY (and was stopped), read at call time. */
  overMemory: () => boolean;
}

/** The error a render on a browser that went away fails with. */
function goneError(gone: Gone): Error {
  return gone === 'hung' ? new BrowserHungError() : new BrowserCrashedError();
}

/** Gives a browser's uid back and removes its HOME once it is gone. */
function cleanUp(runtime: BrowserRuntime, uid: number | undefined, home: string): void {
  runtime.release(uid);
  void rm(home, { recursive: true, force: true }).catch(() => undefined);
}

export class WarmBrowser {
  readonly #options: WarmBrowserOptions;
  #live: Promise<Live> | undefined;
  #closed = false;
  #launches = 0;
  #probing: Promise<void> | undefined;

  constructor(options: WarmBrowserOptions) {
    this.#options = options;
  }

  /** How many times a browser was launched (1 after the first use; more after crashes). */
  get launches(): number {
    return this.#launches;
  }

  async #launch(): Promise<Live> {
    const { runtime, proxyUrl, log } = this.#options;
    this.#launches++;
    const home = await mkdtemp(join(tmpdir(), 'havn-browser-'));
    const uid = await runtime.acquire([home]).catch((err: unknown) => {
      cleanUp(runtime, undefined, home);
      throw err;
    });
    // docs/render.md#memory-bounds: over its bound the browser ends whole, and the next render
    // launches another; the renders it was running fail as with any crash.
    const cgroup = runtime.memory.create();
    const launch = runtime.launch(proxyUrl, home, uid, cgroup);
    const { pageMaxHeapMb } = this.#options;
    if (pageMaxHeapMb !== undefined) launch.args.push(...pageHeapLaunchArgs(pageMaxHeapMb));
    const browser = await chromium
      .launch({
        ...launch,
        headless: true,
        // We handle SIGTERM ourselves and close the browser in onClose.
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
      })
      .catch((err: unknown) => {
        void cgroup?.remove();
        cleanUp(runtime, uid, home);
        const reason = (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';
        log.error({ err }, 'browser launch failed');
        throw new BrowserLaunchError(reason.replace(/^browserType\.launch: /, ''));
      });
    const live: Live = {
      browser,
      pid: await browserPid(browser),
      gone: undefined,
      overMemory: () => false,
    };
    // The kernel kills one process (a page's, mostly) and the browser reports a crashed page at
    // once; the rest of the browser is stopped here. The next render must not reach it in
    // between: #current asks overMemory() before handing the browser out.
    const memory = cgroup?.watch(() => {
      this.#kill(live, 'crashed');
      this.#options.onOverMemory?.();
      log.warn({ pid: live.pid }, 'browser went over BROWSER_MAX_MEMORY and was stopped');
    });
    if (memory) live.overMemory = () => memory.tripped();
    browser.on('disconnected', () => {
      live.gone ??= 'crashed';
      memory?.stop();
      void cgroup?.remove();
      cleanUp(runtime, uid, home);
      if (!this.#closed) log.warn({ pid: live.pid }, 'browser disconnected; it will be relaunched');
      void this.#live?.then((current) => {
        if (current === live) this.#live = undefined;
      });
    });
    log.info({ pid: live.pid, version: browser.version() }, 'browser launched');
    return live;
  }

  async #current(): Promise<Live> {
    for (;;) {
      if (this.#closed) throw new Error('browser closed');
      const pending = (this.#live ??= this.#launch().catch((err: unknown) => {
        this.#live = undefined;
        throw err;
      }));
      const live = await pending;
      if (live.gone === undefined && !live.overMemory() && live.browser.isConnected()) return live;
      if (this.#live === pending) this.#live = undefined;
    }
  }

  /** Launches the browser now (otherwise the first render does). */
  async warmUp(): Promise<void> {
    await this.#current();
  }

  /** The browser's version, e.g. `156.0.8078.79`. */
  async version(): Promise<string> {
    return (await this.#current()).browser.version();
  }

  /** The browser process id, for diagnostics and tests. */
  async pid(): Promise<number | undefined> {
    return (await this.#current()).pid;
  }

  /**
   * A fresh browser context, or the `signal`'s reason once it aborts (the render's deadline bounds
   * a browser that does not answer). Returns it with `gone()`, which tells a failing render
   * whether the browser went away under it, and why.
   */
  async newContext(
    options: BrowserContextOptions,
    signal: AbortSignal,
  ): Promise<{
    context: BrowserContext;
    gone: () => Error | undefined;
    close: () => Promise<void>;
  }> {
    // Nothing of the render has happened before its context exists, so a browser that went away
    // under this step is retried once, on a fresh one.
    try {
      return await this.#newContext(options, signal);
    } catch (err) {
      if (
        signal.aborted ||
        !(err instanceof BrowserCrashedError || err instanceof BrowserHungError)
      )
        throw err;
      return this.#newContext(options, signal);
    }
  }

  async #newContext(options: BrowserContextOptions, signal: AbortSignal) {
    const live = await this.#current();
    const gone = (): Error | undefined => {
      const why =
        live.gone ?? (live.overMemory() || !live.browser.isConnected() ? 'crashed' : undefined);
      return why && goneError(why);
    };
    let onAbort = (): void => undefined;
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => {
        reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
      };
    });
    aborted.catch(() => undefined);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    const making = live.browser.newContext(options);
    try {
      const context = await Promise.race([making, aborted]);
      return { context, gone, close: () => this.#closeContext(live, context) };
    } catch (err) {
      // A context made after the render gave up is closed as soon as it exists.
      making.then((late) => this.#closeContext(live, late)).catch(() => undefined);
      throw gone() ?? err;
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  /**
   * Asks the browser whether it still answers (a render on it reached its deadline). One that
   * does not answer within the wedge timeout is hung: it is killed, the renders still on it fail
   * with BrowserHungError, and the next render gets a fresh browser.
   */
  probe(): Promise<void> {
    this.#probing ??= this.#probe().finally(() => {
      this.#probing = undefined;
    });
    return this.#probing;
  }

  async #probe(): Promise<void> {
    const live = await this.#live?.catch(() => undefined);
    // A function, not a narrowed field: the browser may go away while the probe waits.
    const stillThere = () => live?.gone === undefined;
    if (!live || !stillThere()) return;
    const wedgeMs = this.#options.wedgeTimeoutMs ?? 10_000;
    let timer: NodeJS.Timeout | undefined;
    const ping = (async () => {
      const cdp = await live.browser.newBrowserCDPSession();
      await cdp.send('Browser.getVersion');
      await cdp.detach();
      return true;
    })().catch(() => true); // A browser that went away is the disconnect handler's business.
    const silent = new Promise<false>((resolve) => {
      timer = setTimeout(() => {
        resolve(false);
      }, wedgeMs);
    });
    const answered = await Promise.race([ping, silent]);
    clearTimeout(timer);
    if (answered || !stillThere()) return;
    this.#options.log.error(
      { pid: live.pid, waitedMs: wedgeMs },
      'browser stopped responding; killing it and starting a fresh one',
    );
    this.#kill(live, 'hung');
  }

  /** Closes a context; a browser that cannot do that in time counts as wedged and is replaced. */
  #closeContext(live: Live, context: BrowserContext): Promise<void> {
    const wedgeMs = this.#options.wedgeTimeoutMs ?? 10_000;
    let timer: NodeJS.Timeout | undefined;
    const wedged = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        if (live.gone === undefined) {
          this.#options.log.error(
            { pid: live.pid },
            'browser wedged closing a context; killing it',
          );
          this.#kill(live, 'hung');
        }
        resolve();
      }, wedgeMs);
    });
    const closing = context.close().catch(() => undefined);
    return Promise.race([closing, wedged]).finally(() => {
      clearTimeout(timer);
    });
  }

  #kill(live: Live, why: Gone): void {
    live.gone ??= why;
    if (this.#live) {
      void this.#live.then((current) => {
        if (current === live) this.#live = undefined;
      });
    }
    if (live.pid !== undefined) {
      try {
        process.kill(live.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    void live.browser.close().catch(() => undefined);
  }

  async close(): Promise<void> {
    this.#closed = true;
    const live = await this.#live?.catch(() => undefined);
    this.#live = undefined;
    await live?.browser.close().catch(() => undefined);
  }
}

/** The browser process id, asked of the browser itself (SystemInfo.getProcessInfo). */
async function browserPid(browser: Browser): Promise<number | undefined> {
  try {
    const cdp = await browser.newBrowserCDPSession();
    const info = (await cdp.send('SystemInfo.getProcessInfo')) as {
      processInfo: { type: string; id: number }[];
    };
    await cdp.detach();
    return info.processInfo.find((p) => p.type === 'browser')?.id;
  } catch {
    return undefined;
  }
}
