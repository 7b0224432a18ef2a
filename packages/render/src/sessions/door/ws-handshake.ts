import { createHash, randomBytes } from 'node:crypto';
import { request, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

// The two WebSocket opening handshakes of the CDP door (RFC 6455 §4): it answers the client's
// itself and opens its own to Chromium, then moves bytes between the two sockets (ws-frames.ts
// says why the door does not hand the sockets to `ws`).

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
const KEY = /^[+/0-9A-Za-z]{22}==$/;

function acceptValue(key: string): string {
  return createHash('sha1')
    .update(key + GUID)
    .digest('base64');
}

/**
 * The 101 answer to a client's upgrade request, or the status that refuses it: 400 for a request
 * that is not a WebSocket opening handshake, 426 for a protocol version other than 13. No
 * extension and no subprotocol is agreed: CDP uses neither.
 */
export function serverHandshake(req: IncomingMessage): { accept: string } | { status: 400 | 426 } {
  const key = req.headers['sec-websocket-key'];
  if (req.headers.upgrade?.toLowerCase() !== 'websocket' || !key || !KEY.test(key)) {
    return { status: 400 };
  }
  if (req.headers['sec-websocket-version'] !== '13') return { status: 426 };
  return {
    accept:
      'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
      `Sec-WebSocket-Accept: ${acceptValue(key)}\r\n\r\n`,
  };
}

/**
 * Opens a WebSocket to `url` (ws://) and resolves with its socket and any bytes read past the
 * 101; a browser that has not answered within `timeoutMs` fails it.
 */
export function clientHandshake(
  url: string,
  timeoutMs: number,
): Promise<{ socket: Socket; head: Buffer }> {
  const key = randomBytes(16).toString('base64');
  return new Promise((resolve, reject) => {
    const req = request(url.replace(/^ws:/, 'http:'), {
      headers: {
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': key,
      },
    });
    // A timer of its own rather than an AbortSignal, which would still fire on the upgraded socket.
    const timer = setTimeout(() => {
      req.destroy(
        new Error(`browser did not answer the WebSocket handshake within ${timeoutMs} ms`),
      );
    }, timeoutMs);
    req.on('close', () => {
      clearTimeout(timer);
    });
    req.on('upgrade', (res: IncomingMessage, socket: Socket, head: Buffer) => {
      clearTimeout(timer);
      if (res.headers['sec-websocket-accept'] !== acceptValue(key)) {
        socket.destroy();
        reject(new Error('browser answered the WebSocket handshake wrongly'));
        return;
      }
      resolve({ socket, head });
    });
    req.on('response', (res: IncomingMessage) => {
      res.resume();
      reject(new Error(`browser answered the WebSocket handshake with ${String(res.statusCode)}`));
    });
    req.on('error', reject);
    req.end();
  });
}
