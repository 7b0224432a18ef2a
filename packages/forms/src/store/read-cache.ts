/**
 * A small time-bounded cache for the ingest hot path (a form's gate settings, an organisation's
 * push subscriptions). Writes through this process invalidate at once; the TTL bounds how long
 * another instance's write can go unseen once several instances share a database.
 */
export class ReadCache<V> {
  private readonly entries = new Map<string, { value: V; until: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly max = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** The cached value if it is fresh, without a promise (the ingest hot path); else undefined. */
  peek(key: string): { value: V } | undefined {
    const hit = this.entries.get(key);
    return hit && hit.until > this.now() ? hit : undefined;
  }

  async get(key: string, load: () => Promise<V>): Promise<V> {
    const hit = this.entries.get(key);
    const now = this.now();
    if (hit && hit.until > now) return hit.value;
    const value = await load();
    if (this.entries.size >= this.max) this.entries.clear();
    this.entries.set(key, { value, until: now + this.ttlMs });
    return value;
  }

  invalidate(key: string): void {
    this.entries.delete(key);
  }

  /** Drops every key that starts with `prefix`. */
  invalidatePrefix(prefix: string): void {
    for (const key of this.entries.keys()) if (key.startsWith(prefix)) this.entries.delete(key);
  }
}
