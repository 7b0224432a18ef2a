import { memoryIsShort } from '../browser/memory-pressure.js';
import { resolveProfile } from '../profiles.js';
import type { ServerExtension } from '../server-context.js';
import { ClusterRouting } from './cluster-routing.js';
import { SessionManager, type SessionManagerDeps } from './session-manager.js';
import { SessionPool } from './session-pool.js';
import { sessionRoutes } from './sessions.routes.js';

/** With BROWSER_MAX_MEMORY=off, memory is short for the pool below this much available. */
const MIN_FREE_FOR_POOL = 512 * 1024 * 1024;

// Browser sessions as an extension of the render service: buildServer registers it after the
// core routes and hands it the renders' own config, store, guard proxy, policy and authenticator
// (main.ts: `composeServer({ ..., extensions: [sessionsExtension()] })`).

/** Test and bench knobs; production takes everything from the service context. */
export type SessionsExtensionOverrides = Partial<
  Pick<
    SessionManagerDeps,
    'reaperIntervalMs' | 'screenshotTimeoutMs' | 'stitchTimeoutMs' | 'tmpDir' | 'diskCheckEveryMs'
  >
> & {
  /** Where the pool reads the memory available (the kernel's MemAvailable otherwise). */
  memoryAvailable?: () => number | undefined;
  /** How often the pool looks at memory again (5 s otherwise). */
  poolCheckEveryMs?: number;
};

export function sessionsExtension(
  overrides: SessionsExtensionOverrides = {},
): ServerExtension & { manager(): SessionManager | undefined; drain(): Promise<void> } {
  const { memoryAvailable, poolCheckEveryMs, ...managerOverrides } = overrides;
  let manager: SessionManager | undefined;
  let drainTimeoutMs = 0;
  let routing: ClusterRouting | undefined;
  return {
    register: async (app, ctx) => {
      const { config } = ctx;
      const sessionConfig = {
        maxSessions: config.maxSessions,
        // A default lease longer than the clamp would be clamped on every creation: clamp it once.
        ttlMs: Math.min(config.sessionTtlMs, config.sessionMaxTtlMs),
        maxTtlMs: config.sessionMaxTtlMs,
        ffmpegPath: config.ffmpegPath,
        limits: config.captureLimits,
        maxMessageBytes: config.cdpMaxMessageBytes,
        maxClients: config.cdpMaxClients,
        downloadMaxBytes: config.downloadMaxBytes,
        maxDownloads: config.sessionMaxDownloads,
        maxDownloadBytes: config.sessionMaxDownloadBytes,
        maxDiskBytes: config.sessionMaxDiskBytes,
        maxPages: config.sessionMaxPages,
      };
      // docs/sessions.md#the-warm-pool: idle browsers go first when memory is short.
      const pool = new SessionPool({
        size: config.sessionPoolSize,
        proxy: ctx.proxy,
        runtime: ctx.runtime,
        log: ctx.log,
        underPressure: () =>
          memoryIsShort(config.browserMaxMemory ?? MIN_FREE_FOR_POOL, memoryAvailable),
        checkEveryMs: poolCheckEveryMs,
        tmpDir: managerOverrides.tmpDir,
        maxDiskBytes: config.sessionMaxDiskBytes,
      });
      ctx.metrics.countSessionPool(() => pool.stats());
      manager = new SessionManager({
        config: sessionConfig,
        // Behind the service's own guard proxy, with the very flags one-shot renders use.
        proxy: ctx.proxy,
        runtime: ctx.runtime,
        artifacts: ctx.store,
        states: ctx.states,
        log: ctx.log,
        resolveProfile: (input) => resolveProfile(input, 'profile', config.captureLimits),
        hostPolicy: ctx.policy,
        allowInsecureTls: config.allowInsecureTls,
        // A closed session's events last as long as its artifacts.
        closedKeepMs: config.artifactTtlMs,
        navigationTimeoutMs: config.renderTimeoutMs,
        onOverMemory: () => {
          ctx.metrics.memoryKills.inc({ browser: 'session' });
        },
        pool,
        ...managerOverrides,
      });
      if (ctx.cluster) {
        routing = new ClusterRouting(ctx.cluster, manager, ctx.auth, ctx.log);
        drainTimeoutMs = ctx.cluster.config.drainTimeoutMs;
      }
      await app.register(sessionRoutes, {
        manager,
        authenticator: ctx.auth,
        publicHosts: ctx.publicHosts,
        routing,
      });
    },
    sessionCount: () => manager?.liveCount() ?? 0,
    // docs/render.md#several-instances: a draining member places new sessions on its peers and
    // lets its own run up to DRAIN_TIMEOUT_MS; shutdown then closes what is left as DELETE does.
    drain: async () => {
      if (!routing || !manager) return;
      await routing.drain(drainTimeoutMs);
    },
    /** The manager, once registered (benchmarks reach a session's own DevTools socket through it). */
    manager: () => manager,
    // Normally done already by the plugin's preClose; harmless when repeated.
    close: async () => {
      await manager?.closeAll();
    },
  };
}
