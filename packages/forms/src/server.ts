import { readFileSync } from 'node:fs';
import swagger from '@fastify/swagger';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import {
  closeKeepAliveOnClose,
  installErrorHandler,
  untrustedHost,
  type Logger,
} from '@havn/shared';
import { storeUnavailable } from './store/store-unavailable.js';
import type { FormsConfig } from './config.js';
import { createIdGenerator } from './ids.js';
import { lazyRequestLogger } from './request-logger.js';
import type { App, RouteDeps } from './routes/app.js';
import { registerFileRoutes } from './routes/files.routes.js';
import { registerFormRoutes } from './routes/forms.routes.js';
import { documentRoute, registerOpenapiRoutes } from './routes/openapi.routes.js';
import { registerOrgRoutes } from './routes/orgs.routes.js';
import { INGEST_LIMIT, registerPublicRoutes } from './routes/public.routes.js';
import { schemaErrorMessage } from './routes/schema-errors.js';
import { registerPushRoutes } from './routes/push.routes.js';
import { registerServiceRoutes } from './routes/service.routes.js';
import { registerSetupRoutes } from './routes/setup.routes.js';
import { registerSpamRoutes } from './routes/spam.routes.js';
import { registerSubmissionRoutes } from './routes/submissions.routes.js';
import { registerWebRoutes } from './routes/web.routes.js';
import { registerWebhookRoutes } from './routes/webhooks.routes.js';
import { AuthService } from './services/auth.service.js';
import { DeliveryWorker } from './services/delivery/delivery-worker.js';
import { emailSender } from './services/delivery/email-sender.js';
import { OutboundHttp } from './services/delivery/outbound-http.js';
import { pushSender } from './services/delivery/push-sender.js';
import { webhookRetrySchedule } from './services/delivery/retry-schedule.js';
import { webhookSender } from './services/delivery/webhook-sender.js';
import { ExportService } from './services/export.service.js';
import { FormsService } from './services/forms.service.js';
import { OrgsService } from './services/orgs.service.js';
import { ProofOfWork, type ProofOfWorkOptions } from './services/proof-of-work.service.js';
import { PublicFormsService } from './services/public-forms.service.js';
import { PushSubscriptionsService } from './services/push-subscriptions.service.js';
import { RateLimiter, type IngestLimiter } from './services/rate-limiter.js';
import { RetentionSweeper } from './services/retention-sweeper.js';
import { SetupService, setupUrl } from './services/setup.service.js';
import { SharedRateLimiter } from './services/shared-rate-limiter.js';
import { SpamService } from './services/spam.service.js';
import { SubmissionsService } from './services/submissions.service.js';
import { TokensService } from './services/tokens.service.js';
import type { VapidKeys } from './services/vapid-keys.js';
import { FileLinks } from './services/uploads/file-links.js';
import { WebhookLogService } from './services/webhook-log.service.js';
import { openFileBytes } from './store/open-file-bytes.js';
import type { Store } from './store/store.js';
import { formsErrors } from './errors.js';

export interface ServerDeps {
  config: FormsConfig;
  log: Logger;
  store: Store;
  vapid: VapidKeys;
  now?: () => number;
  /** Delays between webhook attempts (tests shorten it); default docs/forms.md#webhooks. */
  retrySchedule?: readonly number[];
  /** Per-attempt timeout of webhooks and pushes; default 10 s (docs/forms.md#webhooks). */
  deliveryTimeoutMs?: number;
  /** How long a claimed delivery stays this instance's on a shared database; default 60 s. */
  deliveryLeaseMs?: number;
  /** How often forms' retentionDays are enforced; default hourly. */
  retentionSweepMs?: number;
  /** Proof-of-work difficulty and challenge lifetime (docs/forms.md#spam); tests shorten them. */
  proofOfWork?: ProofOfWorkOptions;
}

/** The address this server listens on, as a URL (the inbox link without PUBLIC_BASE_URL). */
function ownUrl(app: App): string {
  const first = app.server.address();
  if (first === null || typeof first === 'string') return 'http://localhost';
  const host = first.family === 'IPv6' ? `[${first.address}]` : first.address;
  return `http://${host}:${String(first.port)}`;
}

function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

/**
 * The whole forms server as a Fastify app that never listens (main.ts listens). The delivery
 * worker starts when the app is ready and stops, with the store, when it closes.
 */
export async function buildServer(deps: ServerDeps): Promise<App> {
  const { config, store } = deps;
  const now = deps.now ?? Date.now;
  const files = await openFileBytes(config.uploads);
  const app: App = Fastify({
    loggerInstance: deps.log,
    trustProxy: config.trustProxy.length > 0 ? [...config.trustProxy] : false,
    // Request lines would dominate the log at ingest rates; errors are still logged.
    logController: new LogController({ disableRequestLogging: true }),
    childLoggerFactory: lazyRequestLogger,
    forceCloseConnections: 'idle',
    schemaErrorFormatter: schemaErrorMessage,
  }).withTypeProvider<TypeBoxTypeProvider>();
  installErrorHandler(app as unknown as FastifyInstance, { unavailable: storeUnavailable });
  closeKeepAliveOnClose(app as unknown as FastifyInstance);
  // docs/forms.md#open-mode: with no admin token every admin route is open, so a page in a
  // developer's browser that rebinds its own name to 127.0.0.1 would reach them all. A Host the
  // server was not told about is refused before anything else is read.
  if (config.adminToken === undefined) {
    const hosts = { baseUrl: config.publicBaseUrl, allowed: config.allowedPublicHosts };
    app.addHook('onRequest', (request, _reply, next) => {
      const refusal = untrustedHost(request.raw, hosts);
      next(
        refusal === undefined ? undefined : formsErrors.error('HOST_REFUSED', { reason: refusal }),
      );
    });
  }

  app.decorateRequest('rawBody', null);
  app.decorateRequest('principal', null);
  app.decorateRequest('publicForm', null);
  // Keep the bytes: ingest stores the raw body untouched (docs/forms.md#endpoints).
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const raw = body as Buffer;
    request.rawBody = raw;
    // Ingest parses its body on the writer thread (GroupCommitWriter.ingest), off this loop.
    if (request.routeOptions.config.unparsedJson === true) {
      done(null, undefined);
      return;
    }
    if (raw.length === 0) {
      done(null, undefined);
      return;
    }
    try {
      done(null, JSON.parse(raw.toString('utf8')));
    } catch {
      done(formsErrors.error('BODY_NOT_JSON'), undefined);
    }
  });

  // docs/forms.md#plain-html-posts: the ingest route also takes a plain HTML form's body, kept as
  // its bytes and read on the writer thread like JSON; every other route answers it 415.
  const notJson = () => formsErrors.error('BODY_NOT_JSON_TYPE');
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'buffer' },
    (request, body, done) => {
      if (request.routeOptions.config.unparsedJson !== true) {
        done(notJson(), undefined);
        return;
      }
      request.rawBody = body as Buffer;
      done(null, undefined);
    },
  );
  // A multipart body may carry files (docs/forms.md#file-uploads): ingest reads it as it arrives
  // from `request.raw`, with limits of its own, so it is not read here.
  app.addContentTypeParser('multipart/form-data', (request, _payload, done) => {
    done(request.routeOptions.config.unparsedJson === true ? null : notJson(), undefined);
  });

  // docs/forms.md#file-uploads: webhooks carry signed file links, absolute like a mail's links.
  const fileLinks = new FileLinks(store.settings, config.uploads.urlTtlSeconds, now);
  const withLinks = (payload: string) =>
    fileLinks.withLinks(payload, config.publicBaseUrl ?? ownUrl(app));
  const outbound = new OutboundHttp(
    { allowPrivate: config.allowPrivateWebhooks, allowedHosts: [] },
    deps.deliveryTimeoutMs ?? 10_000,
  );
  const email = emailSender({
    smtp: config.smtp,
    forms: store.forms,
    submissions: store.submissions,
    // docs/forms.md#email-notices: never a request's Host, which anyone can set; a link in a mail
    // to the inbox must not point wherever a submitter liked.
    baseUrl: () => config.publicBaseUrl ?? ownUrl(app),
    timeoutMs: deps.deliveryTimeoutMs ?? 10_000,
  });
  const worker = new DeliveryWorker({
    deliveries: store.deliveries,
    log: deps.log,
    now,
    schedule: deps.retrySchedule ?? webhookRetrySchedule,
    leaseMs: deps.deliveryLeaseMs,
    // Deliveries yield to a burst of submissions (durable answers first) and catch up after it.
    ingestBusy: () => store.writer.busy(),
    senders: {
      webhook: webhookSender(outbound, now, withLinks),
      push: pushSender({
        push: store.push,
        http: outbound,
        vapid: deps.vapid,
        subject: config.vapidSubject,
      }),
      email: email.send,
    },
  });
  store.onCommitted(() => {
    worker.kick();
  });

  // Instances sharing a database share the limit's counters there; the embedded store's one
  // instance counts in memory.
  const limiter: IngestLimiter = store.shared
    ? new SharedRateLimiter(config.ingestRateLimitPerMinute, store.rateLimits, deps.log, now)
    : new RateLimiter(config.ingestRateLimitPerMinute, now);
  // docs/forms.md#webhooks: a test send goes out through the worker's own sender and agent, so
  // it is signed and checked against the address policy like every delivery.
  const webhookLog = new WebhookLogService({
    forms: store.forms,
    outbox: store.deliveries,
    submissions: store.submissions,
    send: webhookSender(outbound, now, withLinks),
    targetRefusal: (url) => outbound.targetRefusal(url),
    newId: createIdGenerator(now),
    now,
    kick: () => {
      worker.kick();
    },
  });
  // docs/forms.md#spam: challenges signed with a key kept in the database, used ones kept there.
  const proofOfWork = new ProofOfWork(store, deps.log, now, deps.proofOfWork);
  const spam = new SpamService({
    forms: store.forms,
    submissions: store.submissions,
    push: store.push,
    proofOfWork,
    kick: () => {
      worker.kick();
    },
    now,
  });
  // Routes get services, never the store (docs/architecture.md#layering).
  const newId = createIdGenerator(now);
  const orgs = new OrgsService(store.orgs, now);
  const tokens = new TokensService(store.orgs, newId, now);
  const routeDeps: RouteDeps = {
    webhookLog,
    fileLinks,
    config,
    auth: new AuthService(store.orgs, config.adminToken),
    orgs,
    tokens,
    setup: new SetupService({ codes: store.setupCodes, orgStore: store.orgs, orgs, tokens, now }),
    forms: new FormsService(store.forms, now, config.uploads.maxBytes, files.bytes),
    publicForms: new PublicFormsService(
      store.forms,
      store.push,
      store.writer,
      {
        files: files.bytes,
        limits: {
          fieldsBytes: INGEST_LIMIT,
          maxBytes: config.uploads.maxBytes,
          maxTotalBytes: config.uploads.maxTotalBytes,
        },
        newId,
      },
      spam,
    ),
    spam,
    submissions: new SubmissionsService(
      store.submissions,
      store.forms,
      store.deliveries,
      () => {
        worker.kick();
      },
      now,
      files.bytes,
    ),
    exports: new ExportService(store.submissions, store.forms),
    push: new PushSubscriptionsService(store.push, config.allowPrivateWebhooks, newId, now),
    vapid: deps.vapid,
    limiter,
    now,
    startedAt: now(),
    version: packageVersion(),
  };
  // The OpenAPI document is generated from the schemas of the routes registered after it.
  await app.register(swagger, {
    openapi: {
      info: { title: 'Havn forms', version: routeDeps.version },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    },
    transform: documentRoute,
  });
  registerOpenapiRoutes(app);
  app.decorate('firstRunSetupLink', async (base: string) => {
    const code = await routeDeps.setup.firstRunCode();
    return code === undefined ? undefined : setupUrl(base, code);
  });
  registerServiceRoutes(app, routeDeps);
  registerPublicRoutes(app, routeDeps);
  registerOrgRoutes(app, routeDeps);
  registerSetupRoutes(app, routeDeps);
  registerFormRoutes(app, routeDeps);
  registerSubmissionRoutes(app, routeDeps);
  registerFileRoutes(app, routeDeps);
  registerWebhookRoutes(app, routeDeps);
  registerPushRoutes(app, routeDeps);
  registerSpamRoutes(app, routeDeps);
  await registerWebRoutes(app, routeDeps);

  const sweeper = new RetentionSweeper(
    store.submissions,
    files.bytes,
    deps.log,
    now,
    deps.retentionSweepMs ?? 3_600_000,
  );
  app.addHook('onReady', () => {
    worker.start();
    sweeper.start();
    proofOfWork.start();
    return Promise.resolve();
  });
  // Shutdown order (docs/forms.md#graceful-shutdown): the server has stopped accepting and
  // in-flight requests (ingests included) have answered; then the worker stops between attempts;
  // then the database closes.
  app.addHook('onClose', async () => {
    await worker.stop();
    await sweeper.stop();
    await proofOfWork.stop();
    await limiter.close?.();
    outbound.close();
    email.close();
    await store.close();
    files.close();
  });
  return app;
}
