import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import { drives, presentedToken, type Authenticator, type TokenHolder } from '../../auth.js';
import { hostRefusal, originRefusal, type PublicHosts } from '../../public-hosts.js';
import {
  judgeClientFrame,
  judgeWatcherFrame,
  type FramePolicy,
  type FrameJudge,
} from './cdp-frame-policy.js';
import {
  BACKLOG_MESSAGES,
  DoorBridge,
  VERDICT_TIMEOUT_MS,
  type BridgeLimits,
} from './door-bridge.js';
import { CLOSE, serverCloseFrame } from './ws-frames.js';
import { clientHandshake, serverHandshake } from './ws-handshake.js';

// The CDP door (docs/sessions.md#what-the-door-allows): `GET|POST /v1/sessions/<id>/cdp?token=…`
// upgraded to a WebSocket and bridged to the session's own DevTools socket on 127.0.0.1
// (door-bridge.ts: a plain byte pipe would let a client walk around the proxy, so every client
// message is judged). Refusals happen at the socket: an HTTP status line, no JSON body, no
// WebSocket.

/** What the door needs to know about a live session. */
export interface DoorSession extends TokenHolder {
  readonly browserWsEndpoint: string;
  /** A page's own DevTools socket, or undefined for an unknown or browser-internal page. */
  pageWsEndpoint(targetId: string): Promise<string | undefined>;
  readonly framePolicy: FramePolicy;
  /** Any inbound CDP frame keeps the session alive (docs/sessions.md#leases). */
  touch(): void;
  /** A download event the browser sent a client (docs/sessions.md#downloads). */
  downloadEvent(text: string): void;
  /** A client activated a target: the recorder and screenshots follow it. */
  activated(targetId: string): void;
  /** Registers an attached client; `disconnect` is called when the session ends. */
  attach(client: { disconnect(why?: string): void }): () => void;
}

export interface CdpDoorDeps {
  lookup(id: string): DoorSession | undefined;
  /** Who may attach: the door admits what a 'view' route would (docs/architecture.md#who-may-call-render). */
  authenticator: Authenticator;
  log: FastifyBaseLogger;
  /** The Host and browser Origins the door takes (docs/render.md#hosts-and-origins). */
  hosts: PublicHosts;
  /** The largest client message the door reads whole (CDP_MAX_MESSAGE_BYTES); over it, 1009. */
  maxMessageBytes: number;
  /** Clients attached to one session at once (CDP_MAX_CLIENTS); one more is refused with 429. */
  maxClientsPerSession: number;
  /** judgeClientFrame unless given (the sessions bench measures a door that judges nothing). */
  judge?: FrameJudge;
  /** How long a verdict may take (tests shorten it); VERDICT_TIMEOUT_MS by default. */
  verdictTimeoutMs?: number;
  /** False only in the sessions bench: the door as it was before it paused for a verdict. */
  pause?: boolean;
}

// How long the browser may take to answer the door's own WebSocket handshake.
const UPSTREAM_TIMEOUT_MS = 10_000;

// The browser's socket, or one page's (`…/cdp/page/<targetId>`, what /json/list hands out).
const DOOR_PATH =
  /^\/v1\/sessions\/([A-Za-z0-9_-]{1,64})\/cdp(?:\/page\/([A-Za-z0-9_-]{1,64}))?\/?$/;

const STATUS_TEXT: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  426: 'Upgrade Required',
  429: 'Too Many Requests',
  502: 'Bad Gateway',
};

function refuse(socket: Duplex, status: number): void {
  // 426 names the version the door speaks (RFC 6455 §4.4).
  const version = status === 426 ? 'Sec-WebSocket-Version: 13\r\n' : '';
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Error'}\r\n${version}Connection: close\r\nContent-Length: 0\r\n\r\n`,
  );
  socket.destroy();
}

export class CdpDoor {
  private readonly open = new Set<DoorBridge>();
  /** Clients per session, counted from admission, so two upgrades at once cannot both slip in. */
  private readonly clients = new Map<string, number>();

  constructor(private readonly deps: CdpDoorDeps) {}

  /** The HTTP server's 'upgrade' listener: every upgrade the service sees comes here. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on('error', () => undefined);
    const url = new URL(req.url ?? '/', 'http://door.invalid');
    const match = DOOR_PATH.exec(url.pathname);
    // A rebound name (anonymous mode) or another site's page: refused before any token is read.
    const foreign = hostRefusal(req, this.deps.hosts) ?? originRefusal(req, this.deps.hosts);
    if (match && foreign !== undefined) {
      this.deps.log.info({ reason: foreign }, 'cdp door: upgrade refused');
      refuse(socket, 403);
      return;
    }
    // `?token=` (as in `cdpUrl`), or a bearer header for clients that can send one.
    const admitted = this.admit(match?.[1], req.method, presentedToken(req));
    if (typeof admitted === 'number') {
      refuse(socket, admitted);
      return;
    }
    const { session, access } = admitted;
    const handshake = serverHandshake(req);
    if ('status' in handshake) {
      refuse(socket, handshake.status);
      return;
    }
    this.count(session, 1);
    void this.bridge(session, access, match?.[2], socket, head, handshake.accept);
  }

  /** The session a client may attach to, or the status its refused upgrade answers. */
  private admit(
    id: string | undefined,
    method: string | undefined,
    token: string | undefined,
  ): { session: DoorSession; access: 'drive' | 'watch' } | number {
    if (id === undefined) return 404;
    if (method !== 'GET' && method !== 'POST') return 405;
    // The service token, the session's own (drives) or its view token (only watches); an unknown
    // session is 401 unless the service token asks.
    const caller = this.deps.authenticator.reach(token, 'view', this.deps.lookup(id));
    if ('refused' in caller) return caller.refused;
    const { session } = caller;
    if (!session) return 404;
    if ((this.clients.get(session.id) ?? 0) >= this.deps.maxClientsPerSession) return 429;
    return { session, access: drives(caller) ? 'drive' : 'watch' };
  }

  private count(session: DoorSession, delta: 1 | -1): void {
    const n = (this.clients.get(session.id) ?? 0) + delta;
    if (n > 0) this.clients.set(session.id, n);
    else this.clients.delete(session.id);
  }

  /** Drops every client still attached; sessions disconnect theirs when they close. */
  close(): void {
    for (const bridge of this.open)
      bridge.end(serverCloseFrame(CLOSE.goingAway, 'service closing'));
  }

  private async bridge(
    session: DoorSession,
    access: 'drive' | 'watch',
    pageId: string | undefined,
    client: Duplex,
    head: Buffer,
    accept: string,
  ): Promise<void> {
    // No header of the client's is forwarded, Origin least of all: Chromium refuses foreign
    // origins on its DevTools socket, and it only needs to see the service (the Origin was
    // judged in handleUpgrade).
    let upstream: { socket: Socket; head: Buffer };
    try {
      const endpoint =
        pageId === undefined ? session.browserWsEndpoint : await session.pageWsEndpoint(pageId);
      if (endpoint === undefined) {
        this.count(session, -1);
        refuse(client, 404);
        return;
      }
      upstream = await clientHandshake(endpoint, UPSTREAM_TIMEOUT_MS);
    } catch (err) {
      this.deps.log.warn({ session: session.id, err }, 'cdp door: browser socket unreachable');
      this.count(session, -1);
      refuse(client, 502);
      return;
    }
    if (client.destroyed) {
      this.count(session, -1);
      upstream.socket.destroy();
      return;
    }
    client.write(accept);
    const limits: BridgeLimits = {
      maxMessageBytes: this.deps.maxMessageBytes,
      backlogMessages: BACKLOG_MESSAGES,
      // One message as large as a client may send, and the rest of the read it came in.
      backlogBytes: this.deps.maxMessageBytes,
      verdictTimeoutMs: this.deps.verdictTimeoutMs ?? VERDICT_TIMEOUT_MS,
      ...(this.deps.pause === false && { pause: false }),
    };
    const bridge = new DoorBridge(
      session,
      client,
      upstream.socket,
      this.deps.log,
      () => {
        this.open.delete(bridge);
        this.count(session, -1);
      },
      limits,
      // A view token only watches (docs/sessions.md#live-view).
      access === 'watch' ? judgeWatcherFrame : (this.deps.judge ?? judgeClientFrame),
      access === 'drive',
    );
    this.open.add(bridge);
    bridge.start(head, upstream.head);
  }
}
