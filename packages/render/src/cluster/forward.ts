import { request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import type { Duplex } from 'node:stream';
import { tokensEqual } from '@havn/shared';

// Moving a client's request to the instance that owns its session (docs/render.md#several-instances).
// HTTP requests are streamed through as they are, Host header and all, so that every URL the owner
// builds (`cdpUrl`, `liveUrl`, discovery) names the address the client used, never the owner's.
// A WebSocket upgrade is written to the owner as the client sent it, and from then on both
// directions are piped byte for byte: the owner's door reads and judges every frame, as it does
// for a client that reached it directly. Each forwarded request carries the instance credential
// in FORWARDED_HEADER; a client's own copy of that header is never passed on.

/** Marks a request an instance forwarded; its value is the instance credential. */
export const FORWARDED_HEADER = 'x-havn-forwarded-by-peer';

/** Headers that belong to one hop of a connection (RFC 9110 §7.6.1), never forwarded. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  FORWARDED_HEADER,
]);

/** Is the request from a peer? A wrong credential is not; `present` tells it was tried. */
export function peerCredential(
  headers: IncomingMessage['headers'],
  credential: string,
): { present: boolean; valid: boolean } {
  const value = headers[FORWARDED_HEADER];
  if (value === undefined) return { present: false, valid: false };
  const text = Array.isArray(value) ? value.join(',') : value;
  return { present: true, valid: tokensEqual(text, credential) };
}

/** The client's headers for the owner: hop-by-hop ones dropped, the credential added. */
function forwardedHeaders(req: IncomingMessage, credential: string): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
  }
  out[FORWARDED_HEADER] = credential;
  return out;
}

/** Why a forward failed: the owner refused the connection (it is gone), or anything else. */
export class PeerUnreachable extends Error {
  constructor(readonly refused: boolean) {
    super(refused ? 'the instance refused the connection' : 'the instance did not answer');
    this.name = 'PeerUnreachable';
  }
}

function unreachable(err: unknown): PeerUnreachable {
  return new PeerUnreachable((err as NodeJS.ErrnoException).code === 'ECONNREFUSED');
}

/**
 * Sends `req` (its body still unread) to the owner at `base` and writes the owner's answer to
 * `res` as it comes. Rejects with PeerUnreachable, before anything was written, when the owner
 * cannot be reached. The owner's address is in no error message (the log must not show it).
 */
export function forwardHttp(
  req: IncomingMessage,
  res: import('node:http').ServerResponse,
  base: string,
  credential: string,
  timeoutMs: number,
): Promise<void> {
  const target = new URL(req.url ?? '/', base);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const upstream = send(target, {
      method: req.method,
      headers: forwardedHeaders(req, credential),
      timeout: timeoutMs,
    });
    upstream.on('timeout', () => {
      upstream.destroy(new PeerUnreachable(false));
    });
    upstream.on('error', (err) => {
      if (res.headersSent) {
        res.destroy();
        resolve();
      } else reject(unreachable(err));
    });
    upstream.on('response', (answer) => {
      upstream.setTimeout(0);
      const headers: OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(answer.headers)) {
        if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
      }
      res.writeHead(answer.statusCode ?? 502, headers);
      answer.pipe(res);
      answer.on('end', resolve);
      answer.on('error', () => {
        res.destroy();
        resolve();
      });
    });
    // A client that goes away takes the forwarded request with it.
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  });
}

/**
 * Writes the client's upgrade request to the owner and pipes the two sockets together, byte for
 * byte, from the owner's answer on (a refusal included). Rejects with PeerUnreachable when the
 * owner cannot be reached, leaving `client` to the caller.
 */
export function forwardUpgrade(
  req: IncomingMessage,
  client: Duplex,
  head: Buffer,
  base: string,
  credential: string,
  timeoutMs: number,
): Promise<void> {
  const target = new URL(base);
  const port = Number(target.port || (target.protocol === 'https:' ? 443 : 80));
  return new Promise((resolve, reject) => {
    const onConnect = (): void => {
      upstream.setTimeout(0);
      const lines = [`${req.method ?? 'GET'} ${req.url ?? '/'} HTTP/1.1`];
      // The client's headers in their own spelling and order, the upgrade's own included; only a
      // forged credential is dropped.
      const raw = req.rawHeaders;
      for (let i = 0; i + 1 < raw.length; i += 2) {
        const [name = '', value = ''] = [raw[i], raw[i + 1]];
        if (name.toLowerCase() !== FORWARDED_HEADER) lines.push(`${name}: ${value}`);
      }
      lines.push(`${FORWARDED_HEADER}: ${credential}`, '', '');
      upstream.write(lines.join('\r\n'));
      if (head.length > 0) upstream.write(head);
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
      client.on('close', () => upstream.destroy());
      upstream.pipe(client);
      client.pipe(upstream);
      resolve();
    };
    const upstream: Socket =
      target.protocol === 'https:'
        ? tlsConnect({ host: target.hostname, port, servername: target.hostname }, onConnect)
        : netConnect({ host: target.hostname, port }, onConnect);
    upstream.setNoDelay(true);
    upstream.setTimeout(timeoutMs, () => {
      upstream.destroy(new PeerUnreachable(false));
    });
    upstream.once('error', (err) => {
      if (!upstream.writable || upstream.connecting) reject(unreachable(err));
    });
  });
}
