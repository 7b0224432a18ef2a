import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Duplex } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ERROR_CODE_HEADER, sha256Hex, type Logger } from '@havn/shared';
import { renderErrors } from '../errors.js';
import { presentedToken, type Authenticator } from '../auth.js';
import type { Cluster } from '../cluster/cluster.js';
import {
  FORWARDED_HEADER,
  PeerUnreachable,
  forwardHttp,
  forwardUpgrade,
  peerCredential,
} from '../cluster/forward.js';
import { RemoteSession, SessionRegistry } from '../cluster/session-registry.js';
import type { Session } from './session.js';
import type { SessionManager } from './session-manager.js';

// Sessions on several instances (docs/render.md#several-instances). Any instance answers for any
// session: a request for a session another instance owns is forwarded to that owner (its token
// judged here first, by auth.ts as for a local one), a create that finds this instance full or
// draining is placed on a peer with room, and the list is the registry's. The owner does
// everything else as it does alone.

/** How long an owner may take to accept a forwarded connection. */
const CONNECT_TIMEOUT_MS = 10_000;

const DOOR_PATH = /^\/v1\/sessions\/([A-Za-z0-9_-]{1,64})\/cdp(?:\/|$|\?)/;

export class ClusterRouting {
  readonly registry: SessionRegistry;
  /** Requests a peer forwarded here: served locally, never forwarded again. */
  readonly #fromPeer = new WeakSet<IncomingMessage>();
  /** The token hash of each session this instance owns, for the registry's heartbeat rows. */
  readonly #tokenHashes = new Map<string, string>();

  constructor(
    private readonly cluster: Cluster,
    private readonly manager: SessionManager,
    private readonly authenticator: Authenticator,
    private readonly log: Logger,
  ) {
    this.registry = new SessionRegistry(cluster);
    cluster.onHeartbeat(() => {
      const live = manager.list();
      for (const id of this.#tokenHashes.keys()) {
        if (!manager.get(id)) this.#tokenHashes.delete(id);
      }
      return this.registry.sync(
        live.flatMap((s) => {
          const tokenHash = this.#tokenHashes.get(s.id);
          return tokenHash === undefined ? [] : [{ descriptor: s.describe(), tokenHash }];
        }),
      );
    });
  }

  fromPeer(request: FastifyRequest): boolean {
    return this.#fromPeer.has(request.raw);
  }

  /**
   * The sessions plugin's first onRequest hook: a peer's request is served here; a request for a
   * session of another live instance goes to its owner. Returns true when the request was taken
   * over (forwarded, or answered).
   */
  async route(request: FastifyRequest, reply: FastifyReply): Promise<boolean> {
    const peer = peerCredential(request.headers, this.cluster.credential);
    if (peer.present) {
      if (!peer.valid) throw renderErrors.error('TOKEN_INVALID');
      this.#fromPeer.add(request.raw);
      return false;
    }
    const remote = await this.#remoteFor(request);
    if (!remote) return false;
    // The request log's onResponse hook still writes this request's one line.
    reply.hijack();
    await this.#forward(request.raw, reply.raw, remote);
    return true;
  }

  /** The session of another instance this request is about (the auth hook admitted it). */
  async #remoteFor(request: FastifyRequest): Promise<RemoteSession | undefined> {
    const { caller } = request;
    if (caller.as === 'anyone') return undefined;
    // A 'session' or 'view' route: the hook found its session, here or on another instance.
    if (caller.session) return caller.session instanceof RemoteSession ? caller.session : undefined;
    // A service route about a session (or a session the hook found nowhere): the registry says.
    const id = (request.params as { id?: string } | undefined)?.id;
    if (id === undefined || this.manager.get(id)) return undefined;
    return this.registry.remote(id);
  }

  async #forward(req: IncomingMessage, res: ServerResponse, remote: RemoteSession): Promise<void> {
    try {
      await forwardHttp(req, res, remote.owner.url, this.cluster.credential, CONNECT_TIMEOUT_MS);
    } catch (err) {
      if (!(err instanceof PeerUnreachable)) throw err;
      // An owner that refuses connections is gone, and its browsers with it.
      // The reply is hijacked: written here as the error handler would.
      const answer = err.refused
        ? renderErrors.error('SESSION_NOT_FOUND', { id: remote.id })
        : renderErrors.error('OWNER_UNREACHABLE', { id: remote.id, instance: remote.owner.name });
      res.writeHead(answer.status, {
        'content-type': 'application/json; charset=utf-8',
        [ERROR_CODE_HEADER]: answer.code,
      });
      res.end(JSON.stringify({ error: answer.message }));
    }
  }

  /**
   * The HTTP server's upgrade event: a door upgrade for a session of another instance is written
   * to its owner and piped byte for byte; everything else is the local door's.
   */
  async upgrade(
    req: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    local: () => void,
  ): Promise<void> {
    const peer = peerCredential(req.headers, this.cluster.credential);
    const id = DOOR_PATH.exec(req.url ?? '')?.[1];
    if (peer.present || id === undefined || this.manager.get(id)) {
      // A forged credential is refused as a bad token would be.
      if (peer.present && !peer.valid) {
        socket.end('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
        return;
      }
      local();
      return;
    }
    socket.on('error', () => undefined);
    let remote: RemoteSession | undefined;
    try {
      remote = await this.registry.remote(id);
    } catch (err) {
      this.log.warn({ code: (err as { code?: string }).code }, 'session registry unreachable');
    }
    if (!remote || 'refused' in this.authenticator.reach(presentedToken(req), 'view', remote)) {
      local(); // the local door refuses it as it refuses any unknown session or bad token
      return;
    }
    try {
      await forwardUpgrade(
        req,
        socket,
        head,
        remote.owner.url,
        this.cluster.credential,
        CONNECT_TIMEOUT_MS,
      );
      this.log.info({ session: remote.id, forwardedTo: remote.owner.name }, 'cdp door forwarded');
    } catch {
      const status = '502 Bad Gateway';
      socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    }
  }

  /** A new session's row, so that every instance finds it from the moment its creator answers. */
  async opened(session: Session, token: string): Promise<void> {
    const tokenHash = sha256Hex(token);
    this.#tokenHashes.set(session.id, tokenHash);
    await this.registry.add(session.describe(), tokenHash);
  }

  async changed(session: Session): Promise<void> {
    await this.registry.update(session.describe());
  }

  async closed(id: string): Promise<void> {
    this.#tokenHashes.delete(id);
    await this.registry.remove(id);
  }

  /** Every session of the cluster. */
  list(): Promise<unknown[]> {
    return this.registry.list();
  }

  /**
   * SIGTERM (docs/render.md#several-instances): peers stop placing sessions here, creates that
   * still arrive go to them, and this instance's own sessions run on until they end or
   * `timeoutMs` passes.
   */
  async drain(timeoutMs: number): Promise<void> {
    await this.cluster.drain();
    const deadline = Date.now() + timeoutMs;
    this.log.info({ sessions: this.manager.liveCount(), timeoutMs }, 'draining');
    while (this.manager.liveCount() > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, Math.min(250, deadline - Date.now())));
    }
  }

  /** This instance takes no session now: full, or draining. */
  mustPlace(request: FastifyRequest): boolean {
    return !this.fromPeer(request) && (this.cluster.draining || !this.manager.hasRoom());
  }

  /**
   * A create this instance cannot take, offered to each live peer in turn (the most free slots
   * first) until one opens it; 429 only when every instance is full or draining.
   */
  async place(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const body = JSON.stringify(request.body ?? {});
    for (const peer of await this.cluster.placementOrder()) {
      let answer: { status: number; headers: Record<string, string>; body: string };
      try {
        answer = await postToPeer(peer.url, request, body, this.cluster.credential);
      } catch {
        continue; // gone since its last heartbeat: the next one
      }
      if (answer.status === 429 || answer.status === 503) continue;
      this.log.info({ placedOn: peer.name }, 'session create placed on a peer');
      return reply
        .code(answer.status)
        .header('content-type', answer.headers['content-type'] ?? 'application/json')
        .send(answer.body);
    }
    const max = this.manager.config.maxSessions;
    throw renderErrors.error('CLUSTER_SESSIONS_FULL', { max });
  }
}

/** POSTs a create to a peer with the client's Host and token, and reads the whole answer. */
function postToPeer(
  base: string,
  request: FastifyRequest,
  body: string,
  credential: string,
): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      [FORWARDED_HEADER]: credential,
    };
    for (const name of ['host', 'authorization', 'x-forwarded-proto', 'x-forwarded-host']) {
      const value = request.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    const target = new URL('/v1/sessions', base);
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    // A session start takes a browser launch and `url`'s first load: RENDER_TIMEOUT_MS and more.
    const out = send(target, { method: 'POST', headers, timeout: 120_000 });
    out.on('timeout', () => out.destroy(new PeerUnreachable(false)));
    out.on('error', reject);
    out.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        resolve({
          status: res.statusCode ?? 502,
          headers: { 'content-type': res.headers['content-type'] ?? '' },
          body: Buffer.concat(chunks).toString(),
        });
      });
    });
    out.end(body);
  });
}
