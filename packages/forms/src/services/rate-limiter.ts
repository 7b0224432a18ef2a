/** The ingest rate limit as the ingest route sees it. */
export interface IngestLimiter {
  /** Undefined when allowed; otherwise the seconds until the window resets (Retry-After). */
  take(key: string): number | undefined;
  close?(): Promise<void>;
}

/**
 * A fixed one-minute window per key (client IP + form): small, in-memory, for the one instance of
 * the embedded store. Instances sharing a database use SharedRateLimiter.
 */
export class RateLimiter implements IngestLimiter {
  private windows = new Map<string, { start: number; count: number }>();
  private lastSweep = 0;

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Undefined when allowed; otherwise the seconds until the window resets (Retry-After). */
  take(key: string): number | undefined {
    if (this.perMinute === 0) return undefined;
    const now = this.now();
    if (now - this.lastSweep > 60_000) this.sweep(now);
    const w = this.windows.get(key);
    if (!w || now - w.start >= 60_000) {
      this.windows.set(key, { start: now, count: 1 });
      return undefined;
    }
    if (w.count >= this.perMinute) return Math.max(1, Math.ceil((w.start + 60_000 - now) / 1000));
    w.count++;
    return undefined;
  }

  private sweep(now: number): void {
    this.lastSweep = now;
    for (const [key, w] of this.windows) if (now - w.start >= 60_000) this.windows.delete(key);
  }
}
