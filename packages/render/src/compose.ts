import { join } from 'node:path';
import type pg from 'pg';
import type { Logger } from '@havn/shared';
import { startArtifactSweeper } from './artifacts/artifact-sweeper.js';
import { CappedArtifactStore } from './artifacts/capped-artifact-store.js';
import { MonitoredArtifactStore } from './artifacts/monitored-artifact-store.js';
import { openArtifactStore } from './artifacts/open-artifact-store.js';
import { FsStateStore, PgStateStore, type StateStore } from './artifacts/state-store.js';
import { BrowserRuntime } from './browser/browser-runtime.js';
import { Cluster } from './cluster/cluster.js';
import { openClusterDatabase } from './cluster/database.js';
import { WarmBrowser } from './browser/warm-browser.js';
import type { RenderConfig } from './config.js';
import { GuardProxy } from './netguard/guard-proxy.js';
import { buildServer } from './server.js';
import type { App, ServerExtension } from './server-context.js';
import { BrowserStates } from './services/browser-states.js';
import { RenderMetrics } from './services/render-metrics.js';
import { readDescriptor } from './services/state-seal.js';

// The composition root: the real store, proxy, browser and metrics wired into buildServer. main.ts
// and the tests both start the service through here, so they run the same parts.

export async function composeServer(options: {
  config: RenderConfig;
  log: Logger;
  version?: string;
  extensions?: readonly ServerExtension[];
  /** How long a browser may take to answer a probe or close a context before it counts as hung. */
  wedgeTimeoutMs?: number;
  /** Launch the browser now rather than on the first render (main.ts does). */
  warmUp?: boolean;
}): Promise<App> {
  const { config, log } = options;
  const metrics = new RenderMetrics();
  // docs/render.md#several-instances: DATABASE_URL puts the instance in a cluster.
  let pool: pg.Pool | undefined;
  let cluster: Cluster | undefined;
  if (config.cluster) {
    pool = await openClusterDatabase(config.cluster.databaseUrl);
    cluster = new Cluster(pool, config.cluster, config.maxSessions, log);
    // Every series names the instance it came from, so one Prometheus job can scrape them all.
    metrics.registry.setDefaultLabels({ instance: cluster.name });
  }
  const artifacts = await openArtifactStore(config, pool);
  const store = new MonitoredArtifactStore(
    new CappedArtifactStore(artifacts.store, config.artifactMaxBytes),
    (why) => {
      metrics.storeRefusals.inc({ reason: why });
      log.warn({ reason: why, error: store.state.error }, 'the artifact store refused a write');
    },
  );
  // docs/sessions.md#log-in-once-render-many-times: states live where artifacts do, so a cluster
  // shares them; they never expire with the artifacts.
  const states = new BrowserStates({
    store: openStateStore(config, pool),
    key: config.stateKey,
    maxBytes: config.maxStateBytes,
    log,
  });
  const sweeper = startArtifactSweeper({ store, ttlMs: config.artifactTtlMs, log });
  const proxy = await GuardProxy.start({
    policy: { allowedHosts: config.allowedHosts, allowPrivate: config.allowPrivateNetwork },
    log,
    onRefusal: () => {
      metrics.refusals.inc();
    },
  });
  metrics.countProxyChannels(() => proxy.openChannels);
  const runtime = BrowserRuntime.detect(
    config.chromiumPath,
    config.browserUids,
    config.browserMaxMemory,
  );
  logSandbox(log, runtime);
  logMemoryBound(log, runtime);
  const browser = new WarmBrowser({
    runtime,
    proxyUrl: proxy.url,
    log,
    pageMaxHeapMb: config.pageMaxHeapMb,
    ...(options.wedgeTimeoutMs !== undefined && { wedgeTimeoutMs: options.wedgeTimeoutMs }),
    onOverMemory: () => {
      metrics.memoryKills.inc({ browser: 'warm' });
    },
  });
  if (options.warmUp) {
    // Not awaited: the service answers /healthz meanwhile, and a render waits for the launch.
    browser.warmUp().catch((err: unknown) => {
      log.error({ err }, 'browser warm-up failed; renders will retry the launch');
    });
  }
  return buildServer({
    config,
    log,
    store,
    states,
    storeState: () => store.state,
    browser,
    proxy,
    runtime,
    metrics,
    sweeper,
    extensions: options.extensions ?? [],
    version: options.version ?? '0.0.0',
    cluster,
    closeLast: async () => {
      await runtime.memory.close();
      artifacts.close();
      await pool?.end();
    },
  });
}

/** A cluster's states in its database; one process's in ARTIFACT_DIR/states. */
function openStateStore(config: RenderConfig, pool: pg.Pool | undefined): StateStore {
  if (pool) return new PgStateStore(pool);
  return new FsStateStore(join(config.artifactDir, 'states'), readDescriptor);
}

/**
 * Says at start which sandbox browsers got (docs/render.md#browser-processes): Chromium's own,
 * through user namespaces (Debian ships no setuid helper), or none, and why, since an operator
 * can usually fix the why (docs/deploy.md#chromium-sandbox).
 */
function logSandbox(log: Logger, runtime: BrowserRuntime): void {
  const fields = { sandbox: runtime.sandbox, ownUids: runtime.switchesUser };
  if (runtime.sandbox) {
    log.info(fields, "browsers run in Chromium's sandbox (user namespaces)");
  } else if (process.getuid?.() === 0 && !runtime.switchesUser) {
    log.warn(fields, 'browsers run without a sandbox: they run as root (BROWSER_UIDS=off)');
  } else {
    log.warn(
      fields,
      'browsers run without a sandbox: this process cannot create user namespaces (in a container, the seccomp profile may refuse them; see docs/deploy.md#chromium-sandbox)',
    );
  }
}

/** Says at start what memory bound browsers got (docs/render.md#memory-bounds), or why none. */
function logMemoryBound(log: Logger, runtime: BrowserRuntime): void {
  const status = runtime.memory.status;
  if (status.enforced) {
    log.info(
      { memoryBound: status },
      `each browser runs in a memory cgroup (${status.cgroup}) bounded to ${String(status.bytes)} bytes`,
    );
  } else if (status.sharedBytes !== undefined) {
    // A container's (or unit's) own limit: a browser over it cannot take the host down, only
    // this service's own processes, so this is how such a deployment is meant to run.
    log.info(
      { memoryBound: status },
      `browsers have no memory cgroup of their own (${status.reason}); the service's own memory limit, ${String(status.sharedBytes)} bytes, bounds them together (docs/render.md#memory-bounds)`,
    );
  } else {
    log.warn(
      { memoryBound: status },
      `browsers run without a memory bound: ${status.reason} (docs/render.md#memory-bounds)`,
    );
  }
}
