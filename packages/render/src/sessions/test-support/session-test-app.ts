import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { createLogger, installErrorHandler, type Resolver } from '@havn/shared';
import { SessionManager, type SessionProfile } from '../session-manager.js';
import { sessionRoutes } from '../sessions.routes.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buffer } from 'node:stream/consumers';
import { FsArtifactStore } from '../../artifacts/fs-artifact-store.js';
import { FsStateStore } from '../../artifacts/state-store.js';
import { Authenticator, installAuthentication } from '../../auth.js';
import { BrowserStates } from '../../services/browser-states.js';
import { readDescriptor } from '../../services/state-seal.js';
import { BrowserRuntime } from '../../browser/browser-runtime.js';
import { DEFAULT_CAPTURE_LIMITS } from '../../capture-limits.js';
import { formatValidationErrors } from '../../routes/validation-errors.js';
import { GuardProxy } from '../../netguard/guard-proxy.js';
import { LOOPBACK_ONLY, type PublicHosts } from '../../public-hosts.js';
import { jsonApi, type JsonApi } from '../../test-support/json-api.js';
import { startFixtureServer, type TestServer } from './fixture-server.js';
import { renderErrors } from '../../errors.js';

// One real Fastify app with the sessions plugin on port 0, real Chromium behind a guard proxy,
// an in-memory artifact store, and a fixture server (reachable as `localhost`, an allowed host).

export const SERVICE_TOKEN = 'service-token-for-tests-0123456789';

/** Debian's two builds; the door's security tests run against each. */
export const BROWSERS = ['/usr/bin/chromium-headless-shell', '/usr/bin/chromium'] as const;

const PROFILES: Readonly<Record<string, SessionProfile>> = {
  desktop: {
    name: 'desktop',
    viewport: { width: 800, height: 600 },
    deviceScaleFactor: 1,
    isMobile: false,
    hasTouch: false,
    colorScheme: 'light',
    locale: 'da-DK',
    timezone: 'Europe/Copenhagen',
  },
  mobile: {
    name: 'mobile',
    viewport: { width: 390, height: 844 },
    deviceScaleFactor: 2,
    isMobile: true,
    hasTouch: true,
    colorScheme: 'light',
    locale: 'da-DK',
    timezone: 'Europe/Copenhagen',
  },
};

export function testResolveProfile(input: unknown): SessionProfile {
  const name = input ?? 'desktop';
  if (typeof name !== 'string') return { ...PROFILES['desktop']!, name: 'custom' };
  const profile = PROFILES[name];
  if (!profile) {
    throw renderErrors.error('PROFILE_INVALID', {
      field: 'profile:',
      rule: `unknown profile ${name}`,
    });
  }
  return profile;
}

export interface SessionTestApp {
  app: FastifyInstance;
  /** http://127.0.0.1:<port> */
  baseUrl: string;
  manager: SessionManager;
  store: FsArtifactStore;
  runtime: BrowserRuntime;
  /** How many session browsers went over their memory bound so far. */
  overMemory(): number;
  /** The bytes of a stored artifact. */
  bytes(id: string): Promise<Buffer>;
  /** Hosts the guard proxy refused so far. */
  refusals: string[];
  fixture: TestServer;
  proxy: GuardProxy;
  /** An API call with the service token (or `headers`); status and parsed JSON body. */
  api: JsonApi;
  /** Opens a session on the fixture's start page (or `body`); its id and door URL. */
  openSession(body?: Record<string, unknown>): Promise<{ id: string; cdpUrl: string }>;
  auth: { authorization: string };
  close(): Promise<void>;
}

export async function startSessionTestApp(
  options: {
    maxSessions?: number;
    ttlMs?: number;
    maxTtlMs?: number;
    reaperIntervalMs?: number;
    allowInsecureTls?: boolean;
    /** The browser binary; both Debian builds are tested (BROWSERS). */
    chromiumPath?: string;
    maxMessageBytes?: number;
    maxClients?: number;
    downloadMaxBytes?: number;
    maxDownloads?: number;
    maxDownloadBytes?: number;
    /** DNS for the door's address checks, e.g. a slow DNS server on loopback. */
    resolve?: Resolver;
    verdictTimeoutMs?: number;
    /** The Host and Origins the service trusts; loopback only by default. */
    publicHosts?: PublicHosts;
    maxPages?: number;
    maxDiskBytes?: number;
    diskCheckEveryMs?: number;
    /** BROWSER_MAX_MEMORY in bytes; unbounded by default. */
    maxMemoryBytes?: number;
  } = {},
): Promise<SessionTestApp> {
  const fixture = await startFixtureServer();
  const log = createLogger({ name: 'sessions-test', level: 'silent' });
  const refusals: string[] = [];
  const proxy = await GuardProxy.start({
    policy: { allowedHosts: ['localhost'], allowPrivate: false },
    log,
    onRefusal: (refusal) => refusals.push(refusal.host),
  });
  const dir = await mkdtemp(join(tmpdir(), 'havn-sessions-test-'));
  const store = new FsArtifactStore({ dir, ttlMs: 3_600_000 });
  await store.init();
  const runtime = BrowserRuntime.detect(
    options.chromiumPath ?? BROWSERS[0],
    { first: 64000, last: 64099 },
    options.maxMemoryBytes,
  );
  let overMemory = 0;
  // No STATE_KEY: saved states have a test of their own, on the whole service.
  const states = new BrowserStates({
    store: new FsStateStore(join(dir, 'states'), readDescriptor),
    key: undefined,
    maxBytes: 1024 * 1024,
    log,
  });
  const manager = new SessionManager({
    states,
    config: {
      maxSessions: options.maxSessions ?? 4,
      ttlMs: options.ttlMs ?? 60_000,
      maxTtlMs: options.maxTtlMs ?? 120_000,
      ffmpegPath: '/usr/bin/ffmpeg',
      limits: DEFAULT_CAPTURE_LIMITS,
      maxMessageBytes: options.maxMessageBytes ?? 80 * 1024 * 1024,
      maxClients: options.maxClients ?? 4,
      downloadMaxBytes: options.downloadMaxBytes ?? 100 * 1024 * 1024,
      maxDownloads: options.maxDownloads ?? 25,
      maxDownloadBytes: options.maxDownloadBytes ?? 500 * 1024 * 1024,
      maxPages: options.maxPages ?? 20,
      maxDiskBytes: options.maxDiskBytes ?? 1024 * 1024 * 1024,
      ...(options.verdictTimeoutMs !== undefined && { verdictTimeoutMs: options.verdictTimeoutMs }),
    },
    proxy,
    // As the service runs them: a uid of their own when the tests run as root, sandboxed.
    runtime,
    onOverMemory: () => {
      overMemory++;
    },
    artifacts: store,
    log,
    resolveProfile: testResolveProfile,
    hostPolicy: { allowedHosts: ['localhost'], allowPrivate: false },
    ...(options.resolve && { resolve: options.resolve }),
    allowInsecureTls: options.allowInsecureTls ?? false,
    reaperIntervalMs: options.reaperIntervalMs ?? 200,
    ...(options.diskCheckEveryMs !== undefined && { diskCheckEveryMs: options.diskCheckEveryMs }),
    screenshotTimeoutMs: 1500,
  });
  // The same Ajv settings as the service: types are what the schema says, never coerced.
  const app = Fastify({
    logger: false,
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false } },
    schemaErrorFormatter: formatValidationErrors,
  });
  installErrorHandler(app);
  // Judged as the service judges every route (docs/architecture.md#who-may-call-render).
  const authenticator = new Authenticator({ apiToken: SERVICE_TOKEN, allowAnonymous: false });
  installAuthentication(app, authenticator, options.publicHosts ?? LOOPBACK_ONLY);
  await app.register(sessionRoutes, { manager, authenticator, publicHosts: options.publicHosts });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;
  const auth = { authorization: `Bearer ${SERVICE_TOKEN}` };
  const api = jsonApi(baseUrl, auth);
  return {
    app,
    baseUrl,
    api,
    openSession: async (body = { url: fixture.url }) => {
      const created = await api('POST', '/v1/sessions', body);
      if (created.status !== 201) throw new Error(`POST /v1/sessions answered ${created.status}`);
      return created.body as { id: string; cdpUrl: string };
    },
    manager,
    store,
    runtime,
    overMemory: () => overMemory,
    bytes: async (id) => {
      const found = await store.get(id);
      if (!found) throw new Error(`no artifact ${id}`);
      return buffer(found.stream);
    },
    refusals,
    fixture,
    proxy,
    auth,
    close: async () => {
      await app.close();
      await runtime.memory.close();
      await proxy.close();
      await fixture.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
