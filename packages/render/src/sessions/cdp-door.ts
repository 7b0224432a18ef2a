import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import type { FastifyBaseLogger } from 'fastify';
import { presentedToken } from '../auth.js';
import { judgeClientFrame, type FramePolicy } from './cdp-frame-policy.js';
import { tickBatcher } from './tick-batcher.js';

// The CDP door (spec 1 §4.11, issue 4): `GET|POST /v1/sessions/<id>/cdp?token=…` upgraded to a
// WebSocket and bridged, message by message, to the session's own DevTools socket on 127.0.0.1.
// A byte pipe would let a client walk around the proxy, so every client frame is parsed and judged
// (cdp-frame-policy.ts); browser frames pass through untouched. Refusals happen at the socket:
// an HTTP status line, no JSON body, no WebSocket (spec 1 §7).

/** What the door needs to know about a live session. */
export interface DoorSession {
  readonly id: string;
  /** True for the session's own token or the service token (constant-time). */
  acceptsToken(token: string | undefined): boolean;
  readonly browserWsEndpoint: string;
  readonly framePolicy: FramePolicy;
  /** Any inbound CDP frame keeps the session alive (spec 1 §3.1). */
  touch(): void;
  /** A client activated a target: the recorder and screenshots follow it (0-decisions §1). */
  activated(targetId: string): void;
  /** Registers an attached client; `disconnect` is called when the session ends. */
  attach(client: { disconnect(): void }): () => void;
}

export interface CdpDoorDeps {
  lookup(id: string): DoorSession | undefined;
  /** True when a token is the service token, or the service runs anonymous. */
  isServiceToken(token: string | undefined): boolean;
  log: FastifyBaseLogger;
}

const DOOR_PATH = /^\/v1\/sessions\/([A-Za-z0-9_-]{1,64})\/cdp\/?$/;
// Screenshots and traces travel as base64 inside one frame; leave room for big ones.
const MAX_PAYLOAD = 256 * 1024 * 1024;

const STATUS_TEXT: Readonly<Record<number, string>> = {
  401: 'Unauthorized',
  404: 'Not Found',
  405: 'Method Not Allowed',
  502: 'Bad Gateway',
};

function refuse(socket: Duplex, status: number): void {
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Error'}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`,
  );
  socket.destroy();
}

export class CdpDoor {
  private readonly wss = new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    maxPayload: MAX_PAYLOAD,
  });

  constructor(private readonly deps: CdpDoorDeps) {}

  /** The HTTP server's 'upgrade' listener: every upgrade the service sees comes here. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on('error', () => undefined);
    const url = new URL(req.url ?? '/', 'http://door.invalid');
    const match = DOOR_PATH.exec(url.pathname);
    // `?token=` (spec 1 §4.11), or a bearer header for clients that can send one.
    const status = this.refusal(match?.[1], req.method, presentedToken(req));
    const session = match?.[1] === undefined ? undefined : this.deps.lookup(match[1]);
    if (status !== undefined || !session) {
      refuse(socket, status ?? 404);
      return;
    }
    void this.bridge(session, req, socket, head);
  }

  /** The status a refused upgrade answers, or undefined when the client may pass. */
  private refusal(id: string | undefined, method: string | undefined, token: string | undefined) {
    if (id === undefined) return 404;
    if (method !== 'GET' && method !== 'POST') return 405;
    const session = this.deps.lookup(id);
    // Without a valid token nobody learns whether a session exists: 401 before 404.
    if (!session) return this.deps.isServiceToken(token) ? 404 : 401;
    if (!session.acceptsToken(token)) return 401;
    return undefined;
  }

  /** Closes the door's own server; sessions disconnect their clients when they close. */
  close(): void {
    this.wss.close();
  }

  private async bridge(
    session: DoorSession,
    req: IncomingMessage,
    socket: Duplex,
    head: Buffer,
  ): Promise<void> {
    // No header of the client's is forwarded, Origin least of all: Chromium refuses foreign
    // origins on its DevTools socket, and it only needs to see the service.
    const upstream = new WebSocket(session.browserWsEndpoint, {
      perMessageDeflate: false,
      maxPayload: MAX_PAYLOAD,
      // The browser is ours: its frames go through unchecked and unchanged.
      skipUTF8Validation: true,
      // Masking guards proxies in between against script-made frames (RFC 6455 §10.3); this is
      // loopback to our own Chromium, with nothing in between. An all-zero mask tells ws to skip
      // the per-frame copy and XOR of every payload.
      generateMask: (mask: Buffer) => mask.fill(0),
    });
    let upstreamSocket: Duplex | undefined;
    upstream.once('upgrade', (res: IncomingMessage) => {
      upstreamSocket = res.socket;
    });
    try {
      await new Promise<void>((resolve, reject) => {
        upstream.once('open', resolve);
        upstream.once('error', reject);
      });
    } catch (err) {
      this.deps.log.warn({ session: session.id, err }, 'cdp door: browser socket unreachable');
      refuse(socket, 502);
      return;
    }
    // The spec allows POST for the upgrade; ws itself only takes GET.
    req.method = 'GET';
    this.wss.handleUpgrade(req, socket, head, (client) => {
      this.pipe(session, client, socket, upstream, upstreamSocket ?? socket);
    });
  }

  private pipe(
    session: DoorSession,
    client: WebSocket,
    clientSocket: Duplex,
    upstream: WebSocket,
    upstreamSocket: Duplex,
  ): void {
    const attachedAt = Date.now();
    this.deps.log.info({ session: session.id }, 'cdp client attached');
    const detachClient = session.attach({
      disconnect: () => {
        client.close(1001, 'session closed');
      },
    });
    // Flat-mode sessionId → targetId, so Page.bringToFront names the page it brings forward.
    const targets = new Map<string, string>();
    let ended = false;
    const end = (): void => {
      if (!ended) {
        ended = true;
        detachClient();
        this.deps.log.info(
          { session: session.id, ms: Date.now() - attachedAt },
          'cdp client detached',
        );
      }
      if (client.readyState === WebSocket.OPEN) client.close();
      if (upstream.readyState === WebSocket.OPEN) upstream.close();
    };
    const holdClient = tickBatcher(clientSocket);
    const holdUpstream = tickBatcher(upstreamSocket);
    client.on('message', (data: RawData) => {
      session.touch();
      const buf = Buffer.isBuffer(data) ? data : Buffer.concat(toBuffers(data));
      const text = buf.toString('utf8');
      const verdict = judgeClientFrame(text, session.framePolicy);
      if (!verdict.ok) {
        holdClient();
        client.send(verdict.reply);
        return;
      }
      const { method, params, sessionId } = verdict.command;
      if (method === 'Target.activateTarget' && typeof params?.['targetId'] === 'string') {
        session.activated(params['targetId']);
      } else if (method === 'Page.bringToFront' && sessionId) {
        const targetId = targets.get(sessionId);
        if (targetId) session.activated(targetId);
      }
      // Unchanged frames go on as the bytes that came in: no second UTF-8 encoding.
      holdUpstream();
      upstream.send(verdict.text === text ? buf : verdict.text, { binary: false });
    });
    upstream.on('message', (data: RawData, isBinary: boolean) => {
      if (!isBinary) noteAttachment(data, targets);
      holdClient();
      client.send(data, { binary: isBinary });
    });
    client.on('close', end);
    upstream.on('close', end);
    client.on('error', end);
    upstream.on('error', end);
  }
}

function toBuffers(data: RawData): Buffer[] {
  if (Array.isArray(data)) return data;
  if (Buffer.isBuffer(data)) return [data];
  return [Buffer.from(new Uint8Array(data))];
}

const ATTACHED = Buffer.from('"Target.attachedToTarget"');

function noteAttachment(data: RawData, targets: Map<string, string>): void {
  const buf = Buffer.isBuffer(data) ? data : Buffer.concat(toBuffers(data));
  // Cheap test first: Chromium writes an event's method first, so only the head needs looking at.
  if (!buf.subarray(0, 48).includes(ATTACHED)) return;
  try {
    const event = JSON.parse(buf.toString('utf8')) as {
      method?: string;
      params?: { sessionId?: string; targetInfo?: { targetId?: string } };
    };
    const sessionId = event.params?.sessionId;
    const targetId = event.params?.targetInfo?.targetId;
    if (event.method === 'Target.attachedToTarget' && sessionId && targetId) {
      targets.set(sessionId, targetId);
    }
  } catch {
    // Not ours to judge: browser frames are forwarded as they are.
  }
}
