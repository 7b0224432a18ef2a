import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyBaseLogger, FastifyInstance, RawServerDefault } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { HostPolicy, Logger } from '@havn/shared';
import type { ArtifactStore } from './artifacts/artifact-store.js';
import type { Authenticator } from './auth.js';
import type { BrowserRuntime } from './browser/browser-runtime.js';
import type { Cluster } from './cluster/cluster.js';
import type { RenderConfig } from './config.js';
import type { PublicHosts } from './public-hosts.js';
import type { GuardProxy } from './netguard/guard-proxy.js';
import type { BrowserStates } from './services/browser-states.js';
import type { RenderMetrics } from './services/render-metrics.js';

/** The Fastify instance every route module registers on (TypeBox schemas give handler types). */
export type App = FastifyInstance<
  RawServerDefault,
  IncomingMessage,
  ServerResponse,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/**
 * What buildServer hands every route module and every extension plugin (the sessions plugin uses
 * the same store, proxy, policy, auth and metrics registry as the renders).
 */
export interface ServerContext {
  config: RenderConfig;
  log: Logger;
  store: ArtifactStore;
  /** Saved browser states: sessions save them, sessions and renders start from them. */
  states: BrowserStates;
  proxy: GuardProxy;
  /** How browsers are started: uid, sandbox, flags (docs/render.md#browser-processes). */
  runtime: BrowserRuntime;
  policy: HostPolicy;
  /** Who may call (docs/architecture.md#who-may-call-render); sessions hand it their lookup. */
  auth: Authenticator;
  /** The Host and Origin the service trusts (docs/render.md#hosts-and-origins). */
  publicHosts: PublicHosts;
  metrics: RenderMetrics;
  version: string;
  /** Membership of a cluster (docs/render.md#several-instances); undefined for one process. */
  cluster: Cluster | undefined;
}

/** An extension registered by buildServer after the core routes, e.g. browser sessions. */
export interface ServerExtension {
  register(app: App, ctx: ServerContext): Promise<void> | void;
  /** Live sessions, for GET /healthz; 0 when absent. */
  sessionCount?: () => number;
  /** Called on SIGTERM before the service closes (a cluster member lets its sessions finish). */
  drain?: () => Promise<void>;
  /** Called from onClose, after the routes stop taking requests. */
  close?: () => Promise<void>;
}
