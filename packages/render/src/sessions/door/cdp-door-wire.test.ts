import { request } from 'node:http';
import type { Socket } from 'node:net';
import { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSessionTestApp, type SessionTestApp } from '../test-support/session-test-app.js';

// The door on the wire (RFC 6455): it forwards Chromium's bytes and the client's own frames
// rather than re-framing messages, so these tests speak to it frame by frame: fragmented
// commands are judged whole, broken frames close the socket, and the door's own replies never
// land inside one of Chromium's frames.

let t: SessionTestApp;
let cdpUrl: string;

beforeAll(async () => {
  t = await startSessionTestApp();
  const response = await fetch(`${t.baseUrl}/v1/sessions`, {
    method: 'POST',
    headers: { ...t.auth, 'content-type': 'application/json' },
    body: JSON.stringify({ url: t.fixture.url }),
  });
  ({ cdpUrl } = (await response.json()) as { cdpUrl: string });
});
afterAll(async () => {
  await t.close();
});

async function connect(): Promise<{ ws: WebSocket; replies: Map<number, unknown[]> }> {
  const ws = new WebSocket(cdpUrl);
  const replies = new Map<number, unknown[]>();
  ws.on('message', (data: Buffer) => {
    const reply = JSON.parse(data.toString()) as { id?: number };
    if (reply.id !== undefined) replies.set(reply.id, [...(replies.get(reply.id) ?? []), reply]);
  });
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  return { ws, replies };
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 10));
}

/** Opens the door by hand and returns the raw socket, past the 101. */
function rawUpgrade(
  headers: Record<string, string> = {},
): Promise<{ status: number; socket: Socket }> {
  return new Promise((resolve, reject) => {
    const req = request(cdpUrl.replace(/^ws:/, 'http:'), {
      headers: {
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
        ...headers,
      },
    });
    req.on('upgrade', (res, socket: Socket) => {
      resolve({ status: res.statusCode ?? 0, socket });
    });
    req.on('response', (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0, socket: res.socket });
    });
    req.on('error', reject);
    req.end();
  });
}

/** A client speaking frames by hand: masked text frames out, every reply read by its id. */
class ServerWire {
  readonly replies = new Map<number, unknown>();
  bytes = 0;
  /** True once a frame failed to parse as JSON: a reply landed inside another frame. */
  broken = false;
  private pending = Buffer.alloc(0);
  private parts: Buffer[] = [];
  /** Bytes the frame at the head of `pending` needs, so a big one is joined once. */
  private need = 0;

  constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.bytes += chunk.length;
      this.parts.push(chunk);
      const have = this.pending.length + this.parts.reduce((n, part) => n + part.length, 0);
      if (have < this.need) return;
      this.pending = Buffer.concat([this.pending, ...this.parts]);
      this.parts = [];
      this.parse();
    });
  }

  send(message: object): void {
    const payload = Buffer.from(JSON.stringify(message));
    const header =
      payload.length < 126
        ? Buffer.from([0x81, 0x80 | payload.length])
        : Buffer.from([0x81, 0x80 | 126, payload.length >> 8, payload.length & 0xff]);
    // The all-zero mask is a mask all the same (RFC 6455 §5.3).
    this.socket.write(Buffer.concat([header, Buffer.alloc(4), payload]));
  }

  async call(id: number, method: string, params: object = {}): Promise<unknown> {
    this.send({ id, method, params });
    await until(() => this.replies.has(id));
    return (this.replies.get(id) as { result: unknown }).result;
  }

  private parse(): void {
    for (;;) {
      const buf = this.pending;
      if (buf.length < 2) return;
      const len7 = (buf[1] ?? 0) & 0x7f;
      const offset = len7 === 126 ? 4 : len7 === 127 ? 10 : 2;
      if (buf.length < offset) return;
      const length =
        len7 === 126 ? buf.readUInt16BE(2) : len7 === 127 ? Number(buf.readBigUInt64BE(2)) : len7;
      this.need = offset + length;
      if (buf.length < this.need) return;
      const payload = buf.subarray(offset, offset + length).toString();
      this.pending = buf.subarray(offset + length);
      // The next frame's size is not known until its header is read.
      this.need = 0;
      try {
        const reply = JSON.parse(payload) as { id?: number };
        if (reply.id !== undefined) this.replies.set(reply.id, reply);
      } catch {
        this.broken = true;
      }
    }
  }
}

describe('the door on the wire (RFC 6455)', () => {
  it('judges a command sent in fragments as one message', async () => {
    const { ws, replies } = await connect();
    try {
      const command = JSON.stringify({
        id: 1,
        method: 'Target.createTarget',
        params: { url: 'file:///etc/passwd' },
      });
      ws.send(command.slice(0, 10), { fin: false });
      ws.send(command.slice(10, 40), { fin: false });
      ws.send(command.slice(40), { fin: true });
      const allowed = JSON.stringify({ id: 2, method: 'Browser.getVersion' });
      ws.send(allowed.slice(0, 5), { fin: false });
      ws.send(allowed.slice(5), { fin: true });
      await until(() => replies.has(1) && replies.has(2));
      expect(replies.get(1)).toMatchObject([{ error: { code: -32000 } }]);
      expect(replies.get(2)).toHaveLength(1);
      expect(replies.get(2)?.[0]).toHaveProperty('result.product');
    } finally {
      ws.close();
    }
  });

  it("puts its own replies between Chromium's frames, never inside a large one", async () => {
    const { status, socket } = await rawUpgrade();
    expect(status).toBe(101);
    const wire = new ServerWire(socket);
    try {
      const { targetInfos } = (await wire.call(1, 'Target.getTargets')) as {
        targetInfos: { targetId: string; type: string }[];
      };
      const page = targetInfos.find((info) => info.type === 'page');
      const { sessionId } = (await wire.call(2, 'Target.attachToTarget', {
        targetId: page?.targetId,
        flatten: true,
      })) as { sessionId: string };
      // A 16 MB result streams through the door over many reads; the refusals go in as soon as
      // its first bytes are out, so their replies are due while Chromium's frame is unfinished.
      const before = wire.bytes;
      wire.send({
        id: 3,
        sessionId,
        method: 'Runtime.evaluate',
        params: { expression: "'x'.repeat(16000000)", returnByValue: true },
      });
      await until(() => wire.bytes > before);
      for (let id = 10; id < 60; id++) {
        wire.send({ id, method: 'Target.createTarget', params: { url: 'file:///' } });
      }
      await until(() => wire.replies.size === 53 || wire.broken);
      for (let id = 10; id < 60; id++) {
        expect(wire.replies.get(id), String(id)).toMatchObject({ error: { code: -32000 } });
      }
      const big = wire.replies.get(3) as { result: { result: { value: string } } };
      expect(big.result.result.value).toHaveLength(16_000_000);
      expect(wire.broken).toBe(false);
    } finally {
      socket.destroy();
    }
  });

  it('closes with 1002 on an unmasked client frame', async () => {
    const { status, socket } = await rawUpgrade();
    expect(status).toBe(101);
    const received: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    const ended = new Promise((resolve) => socket.once('end', resolve));
    socket.write(Buffer.concat([Buffer.from([0x81, 2]), Buffer.from('{}')]));
    await ended;
    const bytes = Buffer.concat(received);
    const close = bytes.subarray(bytes.indexOf(0x88));
    expect(close.readUInt16BE(2)).toBe(1002);
    socket.destroy();
  });

  it('refuses a handshake of another WebSocket version (426) or without a key (400)', async () => {
    expect((await rawUpgrade({ 'sec-websocket-version': '8' })).status).toBe(426);
    expect((await rawUpgrade({ 'sec-websocket-key': 'short' })).status).toBe(400);
  });
});
