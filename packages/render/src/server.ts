import Fastify, { LogController } from 'fastify';
import swagger from '@fastify/swagger';
import {
  closeKeepAliveOnClose,
  ERROR_CODE_HEADER,
  installErrorHandler,
  redactUrl,
  type HostPolicy,
  type Logger,
} from '@havn/shared';
import type { ArtifactStore } from './artifacts/artifact-store.js';
import type { ArtifactStoreState } from './artifacts/monitored-artifact-store.js';
import type { Sweeper } from './artifacts/artifact-sweeper.js';
import { Authenticator, installAuthentication } from './auth.js';
import { renderErrors } from './errors.js';
import { hostRefusal, type PublicHosts } from './public-hosts.js';
import type { BrowserRuntime } from './browser/browser-runtime.js';
import type { Cluster } from './cluster/cluster.js';
import type { WarmBrowser } from './browser/warm-browser.js';
import type { RenderConfig } from './config.js';
import type { GuardProxy } from './netguard/guard-proxy.js';
import { artifactsRoutes } from './routes/artifacts.routes.js';
import { contentRoutes } from './routes/content.routes.js';
import { pdfRoutes } from './routes/pdf.routes.js';
import { homeRoutes } from './routes/home.routes.js';
import { healthRoutes } from './routes/health.routes.js';
import { metricsRoutes } from './routes/metrics.routes.js';
import { documentRoute, openapiRoutes } from './routes/openapi.routes.js';
import { profilesRoutes } from './routes/profiles.routes.js';
import { renderRoutes } from './routes/render.routes.js';
import { formatValidationErrors } from './routes/validation-errors.js';
import type { App, ServerContext, ServerExtension } from './server-context.js';
import type { RenderMetrics } from './services/render-metrics.js';
import { ContentService } from './services/content-service.js';
import { PdfMergeService } from './services/pdf-merge-service.js';
import { RenderQueue } from './services/render-queue.js';
import { RenderService } from './services/render-service.js';
import type { BrowserStates } from './services/browser-states.js';
import { statesRoutes } from './routes/states.routes.js';

export interface ServerDeps {
  config: RenderConfig;
  log: Logger;
  store: ArtifactStore;
  /** Saved browser states (docs/sessions.md#log-in-once-render-many-times). */
  states: BrowserStates;
  /** The artifact store's write state, for /healthz (docs/operations.md#the-artifact-disk-is-full). */
  storeState?: () => ArtifactStoreState;
  browser: WarmBrowser;
  proxy: GuardProxy;
  runtime: BrowserRuntime;
  metrics: RenderMetrics;
  sweeper?: Sweeper | undefined;
  /** Registered after the core routes (browser sessions). */
  extensions?: readonly ServerExtension[];
  version?: string;
  /** Membership of a cluster (docs/render.md#several-instances); joined once the server listens. */
  cluster?: Cluster | undefined;
  /** Closes what the composition root opened besides these (the cluster's database); runs last. */
  closeLast?: () => Promise<void>;
}

/**
 * The render service as a Fastify app that never listens (CONVENTIONS habit 1). It owns the
 * dependencies it is given from here on: onClose closes the browser, the proxy and the sweeper.
 */
export async function buildServer(deps: ServerDeps): Promise<App> {
  const { config, log, metrics } = deps;
  const version = deps.version ?? '0.0.0';
  const extensions = deps.extensions ?? [];
  const app = Fastify({
    loggerInstance: log,
    // Our own onResponse hook writes the one line per request.
    logController: new LogController({ disableRequestLogging: true }),
    // Room for MAX_HTML_BYTES of html after JSON escaping; larger html answers 400 naming it.
    bodyLimit: Math.max(1024 * 1024, config.maxHtmlBytes * 2 + 1024 * 1024),
    // A JSON API: types are what the schema says, never coerced ("80" is not a quality), and a
    // closed object (record options) refuses an unknown key rather than dropping it.
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false } },
    schemaErrorFormatter: formatValidationErrors,
  }) as unknown as App;
  installErrorHandler(app);
  closeKeepAliveOnClose(app);

  const auth = new Authenticator({
    apiToken: config.apiToken,
    allowAnonymous: config.allowAnonymous,
  });
  const policy: HostPolicy = {
    allowedHosts: config.allowedHosts,
    allowPrivate: config.allowPrivateNetwork,
  };

  const publicHosts: PublicHosts = Object.freeze({
    baseUrl: config.publicBaseUrl,
    allowed: config.allowedPublicHosts,
    refuseUntrusted: config.allowAnonymous,
  });
  // docs/render.md#hosts-and-origins: with no token to check, a rebound name is refused first.
  app.addHook('onRequest', (request, _reply, done) => {
    const refusal = hostRefusal(request.raw, publicHosts);
    done(
      refusal === undefined ? undefined : renderErrors.error('HOST_REFUSED', { reason: refusal }),
    );
  });
  // Before any route registers: each declares who may call it, and is refused otherwise.
  installAuthentication(app, auth, publicHosts);
  // One line per request with status and ms, and the error's code (docs/errors.md) when it failed
  // on purpose, so log queries count failures by what went wrong; the URL's token is redacted,
  // headers never logged.
  app.addHook('onResponse', async (request, reply) => {
    const code = reply.getHeader(ERROR_CODE_HEADER);
    request.log.info(
      {
        method: request.method,
        url: redactUrl(request.url),
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime),
        ...(code === undefined ? {} : { code }),
      },
      'request',
    );
  });

  await app.register(swagger, {
    openapi: {
      // 3.1: its schemas are JSON Schema 2020-12, which is what TypeBox writes (3.0's dialect
      // spells exclusiveMinimum and nullable differently).
      openapi: '3.1.0',
      info: { title: 'Havn render', version },
      // docs/render.md#authentication: the header, or `?token=` for a client that cannot send one.
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer' },
          token: { type: 'apiKey', in: 'query', name: 'token' },
        },
      },
      security: [{ bearer: [] }, { token: [] }],
    },
    transform: documentRoute,
  });

  const queue = new RenderQueue({
    slots: config.maxConcurrency,
    timeoutMs: config.queueTimeoutMs,
    onChange: () => {
      metrics.inFlight.set(queue.inFlight);
      metrics.queued.set(queue.queued);
    },
  });
  const qpdf = { path: config.qpdfPath, timeoutMs: config.renderTimeoutMs };
  const service = new RenderService({
    browser: deps.browser,
    proxy: deps.proxy,
    queue,
    store: deps.store,
    states: deps.states,
    metrics,
    log,
    policy,
    renderTimeoutMs: config.renderTimeoutMs,
    captureLimits: config.captureLimits,
    qpdf,
  });
  const ctx: ServerContext = {
    config,
    log,
    store: deps.store,
    states: deps.states,
    proxy: deps.proxy,
    runtime: deps.runtime,
    policy,
    auth,
    publicHosts,
    metrics,
    version,
    cluster: deps.cluster,
  };

  const sessionCount = () => extensions.reduce((n, e) => n + (e.sessionCount?.() ?? 0), 0);
  healthRoutes(app, {
    version,
    queue,
    sessionCount,
    memoryBound: deps.runtime.memory.status,
    artifactStore: deps.storeState ?? (() => ({ state: 'ok' })),
    cluster: deps.cluster,
  });
  const { cluster } = deps;
  if (cluster) {
    cluster.reportLoad(() => ({
      sessions: sessionCount(),
      rendersInFlight: queue.inFlight,
      rendersQueued: queue.queued,
    }));
    app.addHook('onListen', async () => {
      const address = app.server.address();
      if (typeof address === 'object' && address) {
        await cluster.join({ host: config.host, port: address.port });
      }
    });
  }
  homeRoutes(app, { version, publicHosts });
  profilesRoutes(app);
  renderRoutes(app, service, config);
  contentRoutes(app, service, new ContentService(service, config.maxContentBytes), config);
  const merger = new PdfMergeService({ render: service, store: deps.store, qpdf, metrics });
  pdfRoutes(app, service, merger, config);
  artifactsRoutes(app, deps.store);
  statesRoutes(app, deps.states);
  metricsRoutes(app, metrics);
  openapiRoutes(app);
  for (const extension of extensions) await extension.register(app, ctx);

  app.addHook('onClose', async () => {
    deps.sweeper?.stop();
    for (const extension of extensions) await extension.close?.();
    await deps.browser.close();
    await deps.proxy.close();
    await deps.cluster?.leave().catch((err: unknown) => {
      log.warn({ code: (err as { code?: string }).code }, 'leaving the cluster failed');
    });
    await deps.closeLast?.();
  });
  return app;
}
