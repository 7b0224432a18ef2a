import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { createLogger, HttpError, installErrorHandler } from '@havn/shared';
import { SessionManager, type SessionProfile } from '../session-manager.js';
import { sessionRoutes } from '../sessions.routes.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buffer } from 'node:stream/consumers';
import { FsArtifactStore } from '../../artifacts/fs-artifact-store.js';
import { browserLaunchArgs } from '../../browser/launch-args.js';
import { GuardProxy } from '../../netguard/guard-proxy.js';
import { startFixtureServer, type TestServer } from './fixture-server.js';

// One real Fastify app with the sessions plugin on port 0, real Chromium behind a guard proxy,
// an in-memory artifact store, and a fixture server (reachable as `localhost`, an allowed host).

export const SERVICE_TOKEN = 'service-token-for-tests-0123456789';

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
  if (!profile) throw new HttpError(400, `profile: unknown profile ${name}`);
  return profile;
}

export interface SessionTestApp {
  app: FastifyInstance;
  /** http://127.0.0.1:<port> */
  baseUrl: string;
  manager: SessionManager;
  store: FsArtifactStore;
  /** The bytes of a stored artifact. */
  bytes(id: string): Promise<Buffer>;
  /** Hosts the guard proxy refused so far. */
  refusals: string[];
  fixture: TestServer;
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
  const manager = new SessionManager({
    config: {
      maxSessions: options.maxSessions ?? 4,
      ttlMs: options.ttlMs ?? 60_000,
      maxTtlMs: options.maxTtlMs ?? 120_000,
      publicBaseUrl: undefined,
      ffmpegPath: '/usr/bin/ffmpeg',
    },
    chromiumPath: '/usr/bin/chromium-headless-shell',
    chromiumArgs: browserLaunchArgs(proxy.url),
    artifacts: store,
    log,
    resolveProfile: testResolveProfile,
    hostPolicy: { allowedHosts: ['localhost'], allowPrivate: false },
    allowInsecureTls: options.allowInsecureTls ?? false,
    serviceToken: SERVICE_TOKEN,
    reaperIntervalMs: options.reaperIntervalMs ?? 200,
    screenshotTimeoutMs: 1500,
  });
  // The same Ajv settings as the service: types are what the schema says, never coerced.
  const app = Fastify({ logger: false, ajv: { customOptions: { coerceTypes: false } } });
  installErrorHandler(app);
  await app.register(sessionRoutes, { manager });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  return {
    app,
    baseUrl: `http://127.0.0.1:${port}`,
    manager,
    store,
    bytes: async (id) => {
      const found = await store.get(id);
      if (!found) throw new Error(`no artifact ${id}`);
      return buffer(found.stream);
    },
    refusals,
    fixture,
    auth: { authorization: `Bearer ${SERVICE_TOKEN}` },
    close: async () => {
      await app.close();
      await proxy.close();
      await fixture.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
