import type { Logger } from '@havn/shared';
import { SessionBrowser } from '../browser/session-browser.js';
import { BrowserSlot, type SlotDeps } from './browser-slot.js';

// The warm pool (docs/sessions.md#the-warm-pool): SESSION_POOL_SIZE session browsers launched
// ahead of their sessions, each in a slot of its own (folder, uid, cgroup, proxy channel), so a
// session starts without waiting for Chromium. A session claims one and applies its profile; the
// pool refills in the background, one launch at a time. A pooled browser serves one session only:
// it closes with it, and its folder goes. When the host runs short of memory the idle ones are
// closed first, and none is launched until memory is back.

/** A launched browser and the slot it runs in, handed whole to the session that claims it. */
export interface PooledBrowser {
  slot: BrowserSlot;
  browser: SessionBrowser;
}

export interface SessionPoolDeps extends SlotDeps {
  /** SESSION_POOL_SIZE: idle browsers to keep; 0 keeps none. */
  size: number;
  log: Logger;
  /** True while the host is short of memory (browser/memory-pressure.ts). */
  underPressure: () => boolean;
  /** How often memory and failed launches are looked at again; default 5 s. */
  checkEveryMs?: number | undefined;
}

export interface PoolStats {
  /** SESSION_POOL_SIZE. */
  size: number;
  /** Launched browsers waiting for a session. */
  idle: number;
  /** Sessions that started on a pooled browser. */
  claims: number;
  /** Sessions that found none idle and launched their own. */
  misses: number;
}

export class SessionPool {
  private readonly idle: PooledBrowser[] = [];
  private filling: Promise<void> | undefined;
  private closed = false;
  private readonly timer: NodeJS.Timeout | undefined;
  private claims = 0;
  private misses = 0;

  constructor(private readonly deps: SessionPoolDeps) {
    if (deps.size === 0) return;
    this.timer = setInterval(() => {
      this.check();
    }, deps.checkEveryMs ?? 5000);
    this.timer.unref();
    this.fill();
  }

  stats(): PoolStats {
    return {
      size: this.deps.size,
      idle: this.idle.length,
      claims: this.claims,
      misses: this.misses,
    };
  }

  /** An idle browser for a session, or undefined (a miss) when none is ready; refills behind. */
  claim(): PooledBrowser | undefined {
    if (this.deps.size === 0 || this.closed) return undefined;
    const pooled = this.idle.shift();
    if (pooled) this.claims++;
    else this.misses++;
    this.fill();
    return pooled;
  }

  /** Resolves once no launch is under way (tests and the bench wait for a full pool with it). */
  async settled(): Promise<void> {
    while (this.filling) await this.filling;
  }

  /** Shutdown: no more launches; idle browsers closed and their slots removed. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await this.settled();
    await this.shrink();
  }

  private check(): void {
    if (this.deps.underPressure()) {
      if (this.idle.length === 0) return;
      this.deps.log.warn(
        { idle: this.idle.length },
        'memory is short: the warm pool closes its idle browsers and launches none until it is back',
      );
      void this.shrink();
    } else {
      this.fill();
    }
  }

  private async shrink(): Promise<void> {
    const idle = this.idle.splice(0);
    await Promise.all(idle.map((pooled) => discard(pooled)));
  }

  /** Launches, one at a time, until the pool is full, unless memory is short. */
  private fill(): void {
    this.filling ??= (async () => {
      while (this.wantsMore()) {
        const pooled = await this.launch().catch((err: unknown) => {
          // Tried again at the next check, not at once: a launch that fails tends to fail again.
          this.deps.log.error({ err }, 'the warm pool could not launch a session browser');
          return undefined;
        });
        if (!pooled) return;
        // Shutdown, or memory running short, while it launched.
        if (!this.wantsMore()) {
          await discard(pooled);
          return;
        }
        this.idle.push(pooled);
        pooled.browser.onExit(() => {
          // An idle browser that died (a crash, its memory bound): out of the pool, and replaced.
          const at = this.idle.indexOf(pooled);
          if (at < 0) return;
          this.idle.splice(at, 1);
          void discard(pooled).then(() => {
            this.fill();
          });
        });
      }
    })().finally(() => {
      this.filling = undefined;
    });
  }

  private wantsMore(): boolean {
    return !this.closed && this.idle.length < this.deps.size && !this.deps.underPressure();
  }

  private async launch(): Promise<PooledBrowser> {
    const slot = await BrowserSlot.open(this.deps);
    try {
      return { slot, browser: await SessionBrowser.prelaunch(slot.launch) };
    } catch (err) {
      await slot.discard();
      throw err;
    }
  }
}

async function discard(pooled: PooledBrowser): Promise<void> {
  await pooled.browser.close();
  await pooled.slot.discard();
}
