import { describe, expect, it } from 'vitest';
import {
  CLOSE,
  ClientFrameReader,
  type ClientEvent,
  clientTextFrame,
  OPCODE,
  serverCloseFrame,
  ServerFrameScanner,
  serverTextFrame,
} from './ws-frames.js';

// The door's framing against RFC 6455 §5: what a client may send (masked, fragmented, split over
// any number of reads) and how Chromium's stream is followed without being changed.

/** A frame as a client sends it: masked with a random-looking key. */
function masked(opcode: number, payload: Buffer, fin = true): Buffer {
  const key = Buffer.from([0x37, 0xfa, 0x21, 0x3d]);
  const length = payload.length;
  const header =
    length < 126
      ? Buffer.from([(fin ? 0x80 : 0) | opcode, 0x80 | length])
      : length < 65536
        ? Buffer.from([(fin ? 0x80 : 0) | opcode, 0x80 | 126, length >> 8, length & 0xff])
        : Buffer.concat([Buffer.from([(fin ? 0x80 : 0) | opcode, 0x80 | 127]), u64(length)]);
  const body = Buffer.from(payload.map((byte, i) => byte ^ (key[i & 3] ?? 0)));
  return Buffer.concat([header, key, body]);
}

function u64(n: number): Buffer {
  const out = Buffer.alloc(8);
  out.writeUInt32BE(Math.floor(n / 2 ** 32), 0);
  out.writeUInt32BE(n >>> 0, 4);
  return out;
}

/** Feeds `bytes` to a reader in reads of `size` bytes; returns the events. */
function read(bytes: Buffer, size = bytes.length, maxPayload = 1 << 20): ClientEvent[] {
  const reader = new ClientFrameReader(maxPayload);
  const events: ClientEvent[] = [];
  for (let i = 0; i < bytes.length; i += size) {
    reader.push(bytes.subarray(i, i + size), (event) => events.push(event));
  }
  return events;
}

const text = (event: ClientEvent | undefined) =>
  event?.kind === 'message' ? event.payload.toString() : event;

describe('ClientFrameReader', () => {
  it('unmasks messages of every length form and keeps each frame as sent', () => {
    const messages = ['{"id":1}', 'x'.repeat(300), 'y'.repeat(70_000)];
    const frames = messages.map((m) => masked(OPCODE.text, Buffer.from(m)));
    for (const size of [1, 7, 4096, 1 << 20]) {
      const events = read(Buffer.concat(frames), size);
      expect(events.map(text)).toEqual(messages);
      events.forEach((event, i) => {
        expect(event.kind === 'message' && event.raw?.equals(frames[i]!)).toBe(true);
      });
    }
  });

  it('joins a fragmented message, with a ping between its parts, and has no single frame for it', () => {
    const bytes = Buffer.concat([
      masked(OPCODE.text, Buffer.from('{"id":1,"method":'), false),
      masked(OPCODE.ping, Buffer.from('p')),
      masked(OPCODE.continuation, Buffer.from('"Target.createTarget",'), false),
      masked(OPCODE.continuation, Buffer.from('"params":{"url":"file:///etc/passwd"}}')),
    ]);
    for (const size of [1, 3, bytes.length]) {
      const events = read(bytes, size);
      expect(events.map((e) => e.kind)).toEqual(['control', 'message']);
      expect(text(events[1])).toBe(
        '{"id":1,"method":"Target.createTarget","params":{"url":"file:///etc/passwd"}}',
      );
      expect(events[1]?.kind === 'message' && events[1].raw).toBe(undefined);
    }
  });

  it('closes on what RFC 6455 forbids, and reads nothing after', () => {
    const unmasked = Buffer.concat([Buffer.from([0x81, 2]), Buffer.from('{}')]);
    const cases: [Buffer, number][] = [
      [unmasked, CLOSE.protocolError],
      [masked(OPCODE.text | 0x40, Buffer.from('{}')), CLOSE.protocolError],
      [masked(3, Buffer.from('{}')), CLOSE.protocolError],
      [masked(OPCODE.continuation, Buffer.from('{}')), CLOSE.protocolError],
      [masked(OPCODE.ping, Buffer.alloc(126)), CLOSE.protocolError],
      [masked(OPCODE.ping, Buffer.from('p'), false), CLOSE.protocolError],
      [masked(OPCODE.text, Buffer.from([0x22, 0xc0, 0xa2, 0x22])), CLOSE.invalidData],
      [masked(OPCODE.text, Buffer.alloc(2000, 0x20)), CLOSE.tooBig],
      [
        Buffer.concat([
          masked(OPCODE.text, Buffer.from('{'), false),
          masked(OPCODE.text, Buffer.from('}')),
        ]),
        CLOSE.protocolError,
      ],
    ];
    for (const [bytes, code] of cases) {
      const events = read(Buffer.concat([bytes, masked(OPCODE.text, Buffer.from('{}'))]), 5, 1000);
      expect(events).toEqual([expect.objectContaining({ kind: 'error', code })]);
    }
  });

  it('refuses an over-long message by its header, before it arrives', () => {
    const header = masked(OPCODE.text, Buffer.alloc(70_000)).subarray(0, 10);
    expect(read(header, header.length, 65_536)).toEqual([
      expect.objectContaining({ kind: 'error', code: CLOSE.tooBig }),
    ]);
  });
});

describe('ServerFrameScanner', () => {
  const frames = [
    serverTextFrame('{"id":1,"result":{}}'),
    serverTextFrame(
      JSON.stringify({
        method: 'Target.attachedToTarget',
        params: { sessionId: 'S1', targetInfo: { targetId: 'T1' } },
      }),
    ),
    serverTextFrame(JSON.stringify({ id: 2, result: { data: 'z'.repeat(100_000) } })),
    serverCloseFrame(CLOSE.goingAway, 'bye'),
  ];
  const stream = Buffer.concat(frames);
  // Where each frame ends in the stream.
  const ends = frames.map((_, i) => Buffer.concat(frames.slice(0, i + 1)).length);

  it('finds every frame boundary and the frames it is asked for, however the reads fall', () => {
    for (const size of [3, 50, 9000, stream.length]) {
      const wanted: string[] = [];
      const scanner = new ServerFrameScanner(
        48,
        (head) => head.includes('attachedToTarget'),
        (payload) => wanted.push(payload.toString()),
      );
      for (let at = 0; at < stream.length; at += size) {
        const firstEnd = ends.find((end) => end > at && end <= at + size);
        expect(scanner.scan(stream.subarray(at, at + size))).toBe(
          firstEnd === undefined ? -1 : firstEnd - at,
        );
      }
      expect(wanted.map((w) => JSON.parse(w) as unknown)).toEqual([
        expect.objectContaining({ method: 'Target.attachedToTarget' }),
      ]);
      expect(scanner.atBoundary).toBe(true);
      expect(scanner.sawClose).toBe(true);
    }
  });

  it('is between frames only where a frame ends', () => {
    const scanner = new ServerFrameScanner(
      48,
      () => false,
      () => undefined,
    );
    const frame = serverTextFrame('x'.repeat(200));
    scanner.scan(frame.subarray(0, 1));
    expect(scanner.atBoundary).toBe(false);
    scanner.scan(frame.subarray(1, 150));
    expect(scanner.atBoundary).toBe(false);
    expect(scanner.scan(frame.subarray(150))).toBe(frame.length - 150);
    expect(scanner.atBoundary).toBe(true);
  });
});

describe('frames the door writes', () => {
  it('masks towards Chromium with an all-zero key, so the payload reads as it is', () => {
    const payload = Buffer.from('{"id":1}');
    const frame = clientTextFrame(payload);
    expect(frame.subarray(0, 2)).toEqual(Buffer.from([0x81, 0x80 | payload.length]));
    expect(frame.subarray(2, 6)).toEqual(Buffer.alloc(4));
    expect(frame.subarray(6)).toEqual(payload);
    const long = clientTextFrame(Buffer.alloc(70_000, 0x61));
    const events = read(long, 1000, 1 << 20);
    expect(text(events[0])).toBe('a'.repeat(70_000));
  });

  it('closes with a status code and reason', () => {
    expect(serverCloseFrame(CLOSE.goingAway, 'session closed')).toEqual(
      Buffer.concat([Buffer.from([0x88, 16, 0x03, 0xe9]), Buffer.from('session closed')]),
    );
    expect(serverCloseFrame()).toEqual(Buffer.from([0x88, 0]));
  });
});
