import type { Logger } from '@havn/shared';
import type { RateLimitStore } from '../store/rate-limits.store.js';
import type { IngestLimiter } from './rate-limiter.js';

const minute = 60_000;

/**
 * The ingest rate limit of several instances on one database: fixed minutes (aligned to the
 * clock, so every instance counts the same minute), each key's count kept in the database.
 * `take` stays synchronous (no database round trip per ingest): each instance counts locally, and
 * every `syncMs` adds its counts to the shared counters, reads back their totals and learns which
 * keys other instances have used up (one small indexed read when there is nothing to add). So the limit holds across instances,
 * overshot at most by what the others accepted for a key within one sync
 * (docs/forms.md#several-instances).
 */
export class SharedRateLimiter implements IngestLimiter {
  private window = -1;
  /** Each key's shared total as last read back, this instance's synced counts included. */
  private known = new Map<string, number>();
  /** Counted here and on the way to the database. */
  private sending = new Map<string, number>();
  /** Counted here since the last sync. */
  private pending = new Map<string, number>();
  private ticker: NodeJS.Timeout | undefined;
  private syncing: Promise<void> | undefined;

  constructor(
    private readonly perMinute: number,
    private readonly counters: RateLimitStore,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
    syncMs = 100,
  ) {
    if (perMinute > 0) {
      this.ticker = setInterval(() => {
        this.tick();
      }, syncMs).unref();
    }
  }

  take(key: string): number | undefined {
    if (this.perMinute === 0) return undefined;
    const now = this.now();
    const window = this.currentWindow(now);
    const used =
      (this.known.get(key) ?? 0) + (this.sending.get(key) ?? 0) + (this.pending.get(key) ?? 0);
    if (used >= this.perMinute) return Math.max(1, Math.ceil((window + minute - now) / 1000));
    this.pending.set(key, (this.pending.get(key) ?? 0) + 1);
    return undefined;
  }

  /** Sends what is still only counted here (graceful shutdown). */
  async close(): Promise<void> {
    clearInterval(this.ticker);
    this.ticker = undefined;
    await this.syncing;
    await this.sync();
  }

  private tick(): void {
    if (this.syncing) return;
    this.syncing = this.sync().finally(() => {
      this.syncing = undefined;
    });
  }

  /** The minute `now` is in; the counts of the one before are dropped when it starts. */
  private currentWindow(now: number): number {
    const window = now - (now % minute);
    if (window !== this.window) this.startWindow(window);
    return window;
  }

  private startWindow(window: number): void {
    // The last minute's unsent counts no longer limit anything: they go with it.
    this.window = window;
    this.known = new Map();
    this.pending = new Map();
    this.counters.sweep(window - minute).catch((err: unknown) => {
      this.log.warn({ err }, 'rate limit: dropping old counters failed');
    });
  }

  private async sync(): Promise<void> {
    const window = this.currentWindow(this.now());
    try {
      for (const [k, n] of await this.counters.usedUp(window, this.perMinute)) {
        if (window === this.window && n > (this.known.get(k) ?? 0)) this.known.set(k, n);
      }
    } catch (err) {
      this.log.warn({ err }, 'rate limit: reading the shared counters failed');
    }
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    for (const [k, n] of batch) this.sending.set(k, (this.sending.get(k) ?? 0) + n);
    try {
      const totals = await this.counters.add(window, batch);
      if (window === this.window) for (const [k, n] of totals) this.known.set(k, n);
    } catch (err) {
      this.log.warn({ err }, 'rate limit: updating the shared counters failed');
      // Counted again next time, so the shared counters still get them.
      if (window === this.window) {
        for (const [k, n] of batch) this.pending.set(k, (this.pending.get(k) ?? 0) + n);
      }
    } finally {
      for (const [k, n] of batch) {
        const left = (this.sending.get(k) ?? 0) - n;
        if (left > 0) this.sending.set(k, left);
        else this.sending.delete(k);
      }
    }
  }
}
