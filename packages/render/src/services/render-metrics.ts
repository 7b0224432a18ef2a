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
  readonly memoryKills = new Counter({
    name: 'havn_browser_memory_kills_total',
    help: 'Browsers stopped for going over BROWSER_MAX_MEMORY, the warm one of renders or a session.',
    labelNames: ['browser'] as const,
    registers: [this.registry],
  });
}
