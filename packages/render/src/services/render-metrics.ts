import { Counter, Gauge, Histogram, Registry } from 'prom-client';

// GET /metrics (docs/render.md#get-v1openapijson-and-get-metrics): render duration by format, queue
// depth, in flight, failures by cause, proxy refusals. One registry per server (no global default
// registry), so tests can run many.

export type FailureCause =
  | 'invalid'
  | 'refused'
  | 'queue_timeout'
  | 'render_timeout'
  | 'navigation'
  | 'capture'
  | 'browser_crash'
  | 'browser_hung'
  | 'page_crash'
  | 'aborted'
  | 'internal';

/** The warm pool's figures (sessions/session-pool.ts keeps them; this reads them). */
export interface PoolCounts {
  size: number;
  idle: number;
  claims: number;
  misses: number;
}

/** A counter whose running total is kept elsewhere, at that total. */
function setCounter(counter: Counter, total: number): void {
  counter.reset();
  counter.inc(total);
}

export class RenderMetrics {
  readonly registry = new Registry();
  #proxyChannels: () => number = () => 0;
  readonly duration = new Histogram({
    name: 'havn_render_duration_seconds',
    help: 'Time from taking a concurrency slot to the finished capture, by output format.',
    labelNames: ['format'] as const,
    buckets: [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });
  readonly queued = new Gauge({
    name: 'havn_render_queue_depth',
    help: 'Renders waiting for a concurrency slot.',
    registers: [this.registry],
  });
  readonly inFlight = new Gauge({
    name: 'havn_render_in_flight',
    help: 'Renders holding a concurrency slot.',
    registers: [this.registry],
  });
  readonly failures = new Counter({
    name: 'havn_render_failures_total',
    help: 'Failed renders (batch slots included), by cause.',
    labelNames: ['cause'] as const,
    registers: [this.registry],
  });
  readonly proxyChannels = new Gauge({
    name: 'havn_proxy_channels_open',
    help: 'Guard proxy listeners open (one per render in flight, one per session, one main).',
    registers: [this.registry],
    collect: () => {
      this.proxyChannels.set(this.#proxyChannels());
    },
  });

  /** Where havn_proxy_channels_open is read from at each scrape. */
  countProxyChannels(source: () => number): void {
    this.#proxyChannels = source;
  }

  readonly storeRefusals = new Counter({
    name: 'havn_artifact_store_refusals_total',
    help: 'Outputs the artifact store refused to write, by reason (full: 507; failing: 503).',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  readonly refusals = new Counter({
    name: 'havn_proxy_refusals_total',
    help: 'Destinations the guard proxy refused (private address space).',
    registers: [this.registry],
  });
  #pool: () => PoolCounts = () => ({ size: 0, idle: 0, claims: 0, misses: 0 });
  readonly poolSize = new Gauge({
    name: 'havn_session_pool_size',
    help: 'SESSION_POOL_SIZE: session browsers the warm pool keeps launched (docs/sessions.md#the-warm-pool).',
    registers: [this.registry],
    collect: () => {
      this.poolSize.set(this.#pool().size);
    },
  });
  readonly poolIdle = new Gauge({
    name: 'havn_session_pool_idle',
    help: 'Pooled session browsers launched and waiting for a session (0 while memory is short).',
    registers: [this.registry],
    collect: () => {
      this.poolIdle.set(this.#pool().idle);
    },
  });
  readonly poolClaims = new Counter({
    name: 'havn_session_pool_claims_total',
    help: 'Sessions that started on a pooled browser.',
    registers: [this.registry],
    collect: () => {
      setCounter(this.poolClaims, this.#pool().claims);
    },
  });
  readonly poolMisses = new Counter({
    name: 'havn_session_pool_misses_total',
    help: 'Sessions that found no pooled browser idle and launched their own.',
    registers: [this.registry],
    collect: () => {
      setCounter(this.poolMisses, this.#pool().misses);
    },
  });

  /** Where the havn_session_pool_* figures are read from at each scrape. */
  countSessionPool(source: () => PoolCounts): void {
    this.#pool = source;
  }

  readonly memoryKills = new Counter({
    name: 'havn_browser_memory_kills_total',
    help: 'Browsers stopped for going over BROWSER_MAX_MEMORY, the warm one of renders or a session.',
    labelNames: ['browser'] as const,
    registers: [this.registry],
  });
}
