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

// The warm browser for one-shot renders: launched once, reused, each render isolated in its own
// browser context. A browser that crashes (disconnects) or wedges (cannot make a context in time)
// is killed and replaced on the next use; the renders in flight fail with BrowserCrashedError.

/** The browser went away while a render was using it. */
export class BrowserCrashedError extends Error {
  constructor() {
    super('the browser crashed during the render and has been restarted; retry the request');
    this.name = 'BrowserCrashedError';
  }
}

/** The browser could not be started (a missing or broken binary). */
export class BrowserLaunchError extends Error {
  constructor(reason: string) {
    super(`the browser could not be started: ${reason}`);
    this.name = 'BrowserLaunchError';
  }
}

export interface WarmBrowserOptions {
  /** Which binary, under which uid, with which sandbox (docs/render.md#browser-processes). */
  runtime: BrowserRuntime;
  proxyUrl: string;
  log: Logger;
  /** How long creating a context may take before the browser counts as wedged. */
  wedgeTimeoutMs?: number;
  /** Called when the browser went over BROWSER_MAX_MEMORY and was stopped (for /metrics). */
  onOverMemory?: () => void;
}

interface Live {
  browser: Browser;
  pid: number | undefined;
  crashed: boolean;
  /** True once the browser went over BROWSER_MAX_MEMORY (and was stopped), read at call time. */
  overMemory: () => boolean;
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
    const browser = await chromium
      .launch({
        ...runtime.launch(proxyUrl, home, uid, cgroup),
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
      crashed: false,
      overMemory: () => false,
    };
    // The kernel kills one process (a page's, mostly) and the browser reports a crashed page at
    // once; the rest of the browser is stopped here. The next render must not reach it in
    // between: #current asks overMemory() before handing the browser out.
    const memory = cgroup?.watch(() => {
      this.#kill(live);
      this.#options.onOverMemory?.();
      log.warn({ pid: live.pid }, 'browser went over BROWSER_MAX_MEMORY and was stopped');
    });
    if (memory) live.overMemory = () => memory.tripped();
    browser.on('disconnected', () => {
      live.crashed = true;
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
      if (!live.crashed && !live.overMemory() && live.browser.isConnected()) return live;
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
   * A fresh browser context. Returns it with `crashed()`, which tells a failing render whether the
   * browser went away under it.
   */
  async newContext(
    options: BrowserContextOptions,
  ): Promise<{ context: BrowserContext; crashed: () => boolean; close: () => Promise<void> }> {
    const live = await this.#current();
    const wedgeMs = this.#options.wedgeTimeoutMs ?? 10_000;
    let timer: NodeJS.Timeout | undefined;
    const wedged = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        this.#options.log.error({ pid: live.pid }, 'browser wedged; killing it');
        this.#kill(live);
        reject(new BrowserCrashedError());
      }, wedgeMs);
    });
    try {
      const context = await Promise.race([live.browser.newContext(options), wedged]);
      return {
        context,
        crashed: () => live.crashed || live.overMemory() || !live.browser.isConnected(),
        close: () => this.#closeContext(live, context),
      };
    } catch (err) {
      if (live.crashed || !live.browser.isConnected()) throw new BrowserCrashedError();
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Closes a context; a browser that cannot do that in time counts as wedged and is replaced. */
  #closeContext(live: Live, context: BrowserContext): Promise<void> {
    const wedgeMs = this.#options.wedgeTimeoutMs ?? 10_000;
    let timer: NodeJS.Timeout | undefined;
    const wedged = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        if (!live.crashed) {
          this.#options.log.error(
            { pid: live.pid },
            'browser wedged closing a context; killing it',
          );
          this.#kill(live);
        }
        resolve();
      }, wedgeMs);
    });
    const closing = context.close().catch(() => undefined);
    return Promise.race([closing, wedged]).finally(() => {
      clearTimeout(timer);
    });
  }

  #kill(live: Live): void {
    live.crashed = true;
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
