import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyPluginCallback } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { renderErrors } from '../errors.js';
import type { Authenticator } from '../auth.js';
import { LOOPBACK_ONLY, type PublicHosts } from '../public-hosts.js';
import { ArtifactDescriptor } from '../schemas/artifact.schema.js';
import { ErrorBody } from '../schemas/render.schema.js';
import { CdpDoor } from './door/cdp-door.js';
import type { ClusterRouting } from './cluster-routing.js';
import { discoveryRoutes } from './discovery.routes.js';
import type { Session, SessionDescriptor } from './session.js';
import type { SessionManager } from './session-manager.js';
import { liveRoutes } from './live/live.routes.js';
import { doorUrl, liveViewUrl } from './session-urls.js';
import { SaveStateBody, STATE_ERRORS, StateDescriptor } from '../schemas/state.schema.js';
import {
  CloseQuery,
  CreateSessionBody,
  ScreenshotBody,
  SessionDescriptorSchema,
  SessionEventsSchema,
  SessionParams,
  TouchBody,
} from './session-schemas.js';
import { Type } from 'typebox';

// docs/sessions.md#endpoints as a Fastify plugin: `app.register(sessionRoutes, { manager })`. It
// also owns the HTTP server's 'upgrade' event (the CDP door) and, on close, shuts every session as
// DELETE does (videos stitched) before the server stops.

export interface SessionRoutesOptions {
  manager: SessionManager;
  /** The app's (installAuthentication): it judges every session route, the door included. */
  authenticator: Authenticator;
  /** Scheme and host of `cdpUrl` and the Origins the door takes; loopback only when absent. */
  publicHosts?: PublicHosts | undefined;
  /** Several instances (docs/render.md#several-instances): forwarding, placement, the registry. */
  routing?: ClusterRouting | undefined;
}

export const sessionRoutes: FastifyPluginCallback<SessionRoutesOptions> = (app, options, done) => {
  const { manager, routing, authenticator } = options;
  // Where the auth hook finds the session a route names: here, or on another instance.
  authenticator.useSessions({
    byId: async (id) => manager.get(id) ?? (await routing?.registry.remote(id)),
    byOwnToken: async (token) =>
      manager.ownerOf(token) ?? (await routing?.registry.remoteByToken(token)),
  });
  const hosts = options.publicHosts ?? LOOPBACK_ONLY;
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const door = new CdpDoor({
    lookup: (id) => manager.get(id),
    authenticator,
    log: app.log,
    hosts,
    maxMessageBytes: manager.config.maxMessageBytes,
    maxClientsPerSession: manager.config.maxClients,
    ...(manager.config.verdictTimeoutMs !== undefined && {
      verdictTimeoutMs: manager.config.verdictTimeoutMs,
    }),
  });
  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const local = () => {
      door.handleUpgrade(req, socket, head);
    };
    if (routing) void routing.upgrade(req, socket, head, local);
    else local();
  };
  app.server.on('upgrade', onUpgrade);
  // preClose runs before the server waits for its connections, and attached door sockets would hold
  // it open: close the sessions (and so their clients) first
  // (docs/sessions.md#behaviour-in-detail).
  app.addHook('preClose', async () => {
    await manager.closeAll();
    app.server.off('upgrade', onUpgrade);
    door.close();
  });

  // A session of another instance is served by its owner: forwarded once the auth hook admitted
  // the request, before its body is read.
  if (routing) {
    app.addHook('onRequest', async (request, reply) => {
      if (await routing.route(request, reply)) return reply;
    });
  }

  // Every field of a session body is optional, so no body at all means `{}` (docs/sessions.md),
  // with or without a JSON content type.
  const json = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body.toString();
    if (text === '') done(null, {});
    else void json(request, text, done);
  });
  app.addHook('preValidation', (request, _reply, next) => {
    if (request.method === 'POST' && request.body === undefined) request.body = {};
    next();
  });

  const live = (id: string): Session => {
    const session = manager.get(id);
    if (session) return session;
    // Still 404 (docs/sessions.md#after-a-session-closes), but saying where the reason is.
    const closed = manager.closedRecord(id);
    throw closed
      ? renderErrors.error('SESSION_CLOSED', { id, reason: closed.closedBecause })
      : renderErrors.error('SESSION_NOT_FOUND', { id });
  };

  api.post(
    '/v1/sessions',
    {
      config: { access: 'service' },
      schema: {
        body: CreateSessionBody,
        response: { 201: SessionDescriptorSchema, 429: ErrorBody, ...STATE_ERRORS },
      },
    },
    async (request, reply) => {
      if (routing?.mustPlace(request)) return routing.place(request, reply);
      let opened: Awaited<ReturnType<SessionManager['create']>>;
      try {
        opened = await manager.create(request.body);
      } catch (err) {
        // Full by a create that ran alongside: a peer may still have room.
        const full = renderErrors.is(err, 'SESSIONS_FULL');
        if (routing && full && !routing.fromPeer(request)) return routing.place(request, reply);
        throw err;
      }
      const { session, token } = opened;
      await routing?.opened(session, token);
      const cdpUrl = doorUrl(request, hosts, session.id, token);
      const liveUrl = liveViewUrl(request, hosts, session.id, token);
      const watchUrl = liveViewUrl(request, hosts, session.id, session.watchToken());
      return reply.code(201).send({ ...session.describe(), cdpUrl, liveUrl, watchUrl });
    },
  );

  api.get(
    '/v1/sessions',
    {
      config: { access: 'service' },
      schema: { response: { 200: Type.Object({ sessions: Type.Array(SessionDescriptorSchema) }) } },
    },
    async () => ({
      sessions: routing
        ? ((await routing.list()) as SessionDescriptor[])
        : manager.list().map((s) => s.describe()),
    }),
  );

  // GET does not refresh the lease (docs/sessions.md#leases).
  api.get(
    '/v1/sessions/:id',
    {
      config: { access: 'service' },
      schema: { params: SessionParams, response: { 200: SessionDescriptorSchema } },
    },
    (request) => Promise.resolve(live(request.params.id).describe()),
  );

  // A live session's events, or a closed one's with how it ended: a session the service ended
  // (a browser over its memory bound) can be asked why. GET does not refresh the lease.
  api.get(
    '/v1/sessions/:id/events',
    {
      config: { access: 'service' },
      schema: { params: SessionParams, response: { 200: SessionEventsSchema } },
    },
    (request) => {
      const { id } = request.params;
      const session = manager.get(id);
      if (session) return Promise.resolve({ id, state: 'live' as const, events: session.events });
      const closed = manager.closedRecord(id);
      if (!closed) return Promise.reject(renderErrors.error('SESSION_NOT_FOUND', { id }));
      return Promise.resolve({ ...closed, state: 'closed' as const, events: [...closed.events] });
    },
  );

  api.delete(
    '/v1/sessions/:id',
    {
      config: { access: 'service' },
      schema: {
        params: SessionParams,
        querystring: CloseQuery,
        response: {
          200: Type.Object({ id: Type.String(), artifacts: Type.Array(ArtifactDescriptor) }),
          ...STATE_ERRORS,
          // saveState over MAX_STATE_BYTES.
          413: ErrorBody,
        },
      },
    },
    async (request) => {
      const session = live(request.params.id);
      const { saveState } = request.query;
      // Saved first, while the browser is there; a state that cannot be saved leaves it open.
      if (saveState !== undefined) {
        await manager.saveState(session, saveState, session.labels, 'saveState');
      }
      const artifacts = await manager.close(session);
      await routing?.closed(session.id);
      return { id: session.id, artifacts };
    },
  );

  api.post(
    '/v1/sessions/:id/screenshot',
    {
      config: { access: 'service' },
      schema: {
        params: SessionParams,
        body: ScreenshotBody,
        response: { 200: ArtifactDescriptor },
      },
    },
    async (request) => {
      const session = live(request.params.id);
      const artifact = await manager.screenshot(session, request.body);
      await routing?.changed(session);
      return artifact;
    },
  );

  // docs/sessions.md#log-in-once-render-many-times: the session's own token may save its state,
  // and no other session's (401, as the door answers a token that is not the session's).
  api.post(
    '/v1/sessions/:id/state',
    {
      config: { access: 'session' },
      schema: {
        params: SessionParams,
        body: SaveStateBody,
        response: { 201: StateDescriptor, ...STATE_ERRORS },
      },
    },
    async (request, reply) => {
      const { name, labels } = request.body;
      const saved = await manager.saveState(live(request.params.id), name, labels);
      return reply.code(201).send(saved);
    },
  );

  api.post(
    '/v1/sessions/:id/touch',
    {
      config: { access: 'service' },
      schema: {
        params: SessionParams,
        body: TouchBody,
        response: { 200: SessionDescriptorSchema },
      },
    },
    async (request) => {
      const session = live(request.params.id);
      manager.touch(session, request.body.ttlMs);
      await routing?.changed(session);
      return session.describe();
    },
  );

  discoveryRoutes(app, hosts);
  liveRoutes(app);
  done();
};
