import { isUtf8 } from 'node:buffer';

// WebSocket framing for the CDP door (RFC 6455 §5), written here rather than taken from `ws`
// because the door must forward bytes, not messages: Chromium's frames go to the client exactly
// as they came, and a client frame the policy lets pass goes to Chromium as the frame the client
// sent. `ws` re-frames every message through a stream pipeline, which cost the door ~45 µs of CPU
// per round trip against ~9 µs for a byte pipe (docs/benchmarks.md#sessions-the-cdp-door).

export const OPCODE = { continuation: 0, text: 1, binary: 2, close: 8, ping: 9, pong: 10 } as const;

/** Close codes the door itself sends (RFC 6455 §7.4.1). */
export const CLOSE = {
  goingAway: 1001,
  protocolError: 1002,
  invalidData: 1007,
  policyViolation: 1008,
  tooBig: 1009,
} as const;

/** What the reader's step returns for a frame that only continues a message. */
const FRAGMENT = Symbol('fragment');

export type ClientEvent =
  /** A whole data message; `raw` is the client's own frame when the message came in one. */
  | { kind: 'message'; payload: Buffer; raw: Buffer | undefined }
  /** A ping, pong or close frame, as sent (control frames are never fragmented). */
  | { kind: 'control'; opcode: number; raw: Buffer }
  /** The stream broke the protocol: close with `code`; the reader takes nothing more. */
  | { kind: 'error'; code: number; reason: string };

/**
 * Reads the frames a client sends (masked, per RFC 6455 §5.3), reassembles fragmented messages
 * and unmasks payloads so the door can judge them, keeping each frame's original bytes.
 */
export class ClientFrameReader {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private fragments: Buffer[] | undefined;
  private fragmentsLength = 0;
  private failed = false;

  constructor(private readonly maxPayload: number) {}

  push(chunk: Buffer, emit: (event: ClientEvent) => void): void {
    if (this.failed) return;
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    for (;;) {
      const event = this.next();
      if (event === undefined) return;
      if (event === FRAGMENT) continue;
      if (event.kind === 'error') this.failed = true;
      emit(event);
      if (this.failed) return;
    }
  }

  /** The next complete frame's event, FRAGMENT for a part of a message, undefined for "wait". */
  private next(): ClientEvent | typeof FRAGMENT | undefined {
    if (this.buffered < 2) return undefined;
    const head = this.peek(14);
    const b0 = head.readUInt8(0);
    const b1 = head.readUInt8(1);
    const fin = (b0 & 0x80) !== 0;
    const opcode = b0 & 0x0f;
    if ((b0 & 0x70) !== 0) return fail(CLOSE.protocolError, 'reserved bits set');
    if ((b1 & 0x80) === 0) return fail(CLOSE.protocolError, 'client frames must be masked');
    if (opcode > OPCODE.binary && opcode < OPCODE.close)
      return fail(CLOSE.protocolError, 'bad opcode');
    if (opcode > OPCODE.pong) return fail(CLOSE.protocolError, 'bad opcode');
    let length = b1 & 0x7f;
    let offset = 2;
    if (length === 126) {
      if (head.length < 4) return undefined;
      length = head.readUInt16BE(2);
      offset = 4;
    } else if (length === 127) {
      if (head.length < 10) return undefined;
      const high = head.readUInt32BE(2);
      // Anything past 2^53 is far past maxPayload; the check below refuses it.
      length = high > 0x1fffff ? Infinity : high * 2 ** 32 + head.readUInt32BE(6);
      offset = 10;
    }
    const control = opcode >= OPCODE.close;
    if (control && (!fin || length > 125)) return fail(CLOSE.protocolError, 'bad control frame');
    if (!control && this.fragmentsLength + length > this.maxPayload) {
      return fail(CLOSE.tooBig, 'message too big');
    }
    const total = offset + 4 + length;
    if (this.buffered < total) return undefined;
    const raw = this.take(total);
    const payload = unmask(raw, offset);
    if (control) return { kind: 'control', opcode, raw };
    if (opcode !== OPCODE.continuation) {
      if (this.fragments) return fail(CLOSE.protocolError, 'message interrupted by another');
      if (fin) return message(payload, raw);
      this.fragments = [payload];
      this.fragmentsLength = payload.length;
      return FRAGMENT;
    }
    if (!this.fragments) return fail(CLOSE.protocolError, 'continuation without a message');
    this.fragments.push(payload);
    this.fragmentsLength += payload.length;
    if (!fin) return FRAGMENT;
    const whole = Buffer.concat(this.fragments, this.fragmentsLength);
    this.fragments = undefined;
    this.fragmentsLength = 0;
    return message(whole, undefined);
  }

  /** The first `n` buffered bytes (fewer if fewer are buffered), contiguous. */
  private peek(n: number): Buffer {
    const first = this.chunks[0];
    if (first && (first.length >= n || this.chunks.length === 1)) return first.subarray(0, n);
    const all = Buffer.concat(this.chunks, this.buffered);
    this.chunks = [all];
    return all.subarray(0, n);
  }

  /** Removes and returns the first `n` buffered bytes, contiguous. */
  private take(n: number): Buffer {
    this.buffered -= n;
    const first = this.chunks[0];
    if (first && first.length >= n) {
      // A frame inside one read is a view of it, not a copy.
      if (first.length === n) this.chunks.shift();
      else this.chunks[0] = first.subarray(n);
      return first.subarray(0, n);
    }
    const out = Buffer.allocUnsafe(n);
    let filled = 0;
    // `buffered` counted at least n bytes, so the chunks run out only when the frame is whole.
    for (let chunk = this.chunks.shift(); chunk; chunk = this.chunks.shift()) {
      const part = Math.min(chunk.length, n - filled);
      chunk.copy(out, filled, 0, part);
      filled += part;
      if (part < chunk.length) {
        this.chunks.unshift(chunk.subarray(part));
        break;
      }
      if (filled === n) break;
    }
    return out;
  }
}

function fail(code: number, reason: string): ClientEvent {
  return { kind: 'error', code, reason };
}

/** Data messages must be UTF-8: CDP is JSON text (RFC 6455 §8.1 for text frames). */
function message(payload: Buffer, raw: Buffer | undefined): ClientEvent {
  if (!isUtf8(payload)) return fail(CLOSE.invalidData, 'message is not UTF-8');
  return { kind: 'message', payload, raw };
}

/** The payload of a masked frame whose 4-byte mask starts at `offset`, unmasked into a copy. */
function unmask(frame: Buffer, offset: number): Buffer {
  const mask = frame.subarray(offset, offset + 4);
  const payload = frame.subarray(offset + 4);
  const out = Buffer.allocUnsafe(payload.length);
  for (let i = 0; i < payload.length; i++) out[i] = (payload[i] ?? 0) ^ (mask[i & 3] ?? 0);
  return out;
}

/**
 * Follows frame boundaries in the stream Chromium sends (unmasked server frames) without copying
 * payloads, so the door can forward that stream as it reads it, put its own frames between two
 * of Chromium's, and look at the few text frames `wanted` picks by their first bytes.
 */
/** Rewrites a server text payload in place, part by part (trace-redactor.ts). */
export interface PayloadRewriter {
  /** Rewrites `part`; returns how many bytes at the end must wait for the next part. */
  push(part: Buffer): number;
}

export class ServerFrameScanner {
  private readonly header = Buffer.alloc(14);
  private headerHave = 0;
  private headerNeed = 2;
  private inPayload = false;
  private remaining = 0;
  private frameLength = 0;
  private text = false;
  /** The first bytes of the current text payload, while it spans reads and is undecided. */
  private probe: Buffer[] = [];
  private probeHave = 0;
  private decided = false;
  private kept: Buffer[] | undefined;
  private rewriter: PayloadRewriter | undefined;
  /** True once Chromium sent a close frame. */
  sawClose = false;
  /** Bytes at the end of the last chunk scanned that must not be sent yet (see PayloadRewriter). */
  holdBack = 0;

  constructor(
    private readonly probeLength: number,
    private readonly wanted: (head: Buffer) => boolean,
    private readonly onWanted: (payload: Buffer) => void,
    /** A rewriter for the payload whose head this is, or undefined to leave it as it is. */
    private readonly rewrites: (head: Buffer) => PayloadRewriter | undefined = () => undefined,
  ) {}

  /** True between two frames: a frame of the door's own may go out now. */
  get atBoundary(): boolean {
    return !this.inPayload && this.headerHave === 0;
  }

  /** Follows `chunk`; returns the offset just past the first frame that ends in it, or -1. */
  scan(chunk: Buffer): number {
    this.holdBack = 0;
    let firstEnd = -1;
    let i = 0;
    while (i < chunk.length) {
      if (!this.inPayload) {
        const payloadStart = this.readHeader(chunk, i);
        if (payloadStart < 0) break;
        i = payloadStart;
        // An empty frame ends where its header does.
        if (this.remaining > 0) continue;
      } else {
        const n = Math.min(this.remaining, chunk.length - i);
        this.payload(chunk.subarray(i, i + n));
        this.remaining -= n;
        i += n;
        if (this.remaining > 0) continue;
      }
      this.endFrame();
      if (firstEnd < 0) firstEnd = i;
    }
    return firstEnd;
  }

  /** Reads header bytes from `at`; returns where the payload starts, or -1 if the read ends first. */
  private readHeader(chunk: Buffer, at: number): number {
    let i = at;
    while (this.headerHave < this.headerNeed && i < chunk.length) {
      this.header[this.headerHave++] = chunk[i++] ?? 0;
      if (this.headerHave === 2) {
        const len7 = this.header.readUInt8(1) & 0x7f;
        const masked = (this.header.readUInt8(1) & 0x80) !== 0;
        this.headerNeed = 2 + (len7 === 126 ? 2 : len7 === 127 ? 8 : 0) + (masked ? 4 : 0);
      }
    }
    if (this.headerHave < this.headerNeed) return -1;
    const opcode = this.header.readUInt8(0) & 0x0f;
    const len7 = this.header.readUInt8(1) & 0x7f;
    this.frameLength =
      len7 === 126
        ? this.header.readUInt16BE(2)
        : len7 === 127
          ? this.header.readUInt32BE(2) * 2 ** 32 + this.header.readUInt32BE(6)
          : len7;
    if (opcode === OPCODE.close) this.sawClose = true;
    this.text = opcode === OPCODE.text;
    this.remaining = this.frameLength;
    this.inPayload = true;
    this.headerHave = 0;
    this.headerNeed = 2;
    return i;
  }

  private payload(part: Buffer): void {
    if (!this.text) return;
    if (this.rewriter) {
      this.holdBack = this.rewriter.push(part);
      return;
    }
    if (this.kept) {
      this.kept.push(part);
      return;
    }
    if (this.decided) return;
    const probeSize = Math.min(this.probeLength, this.frameLength);
    if (this.probeHave === 0 && part.length >= probeSize) {
      // The common case: the payload's head is in this read, so nothing is copied.
      this.decide(part.subarray(0, probeSize), part);
      return;
    }
    this.probe.push(part);
    this.probeHave += part.length;
    if (this.probeHave < probeSize) return;
    const head = Buffer.concat(this.probe, this.probeHave);
    this.decide(head.subarray(0, probeSize), part, head);
    this.probe = [];
  }

  private decide(head: Buffer, part: Buffer, whole: Buffer = part): void {
    this.decided = true;
    this.rewriter = this.rewrites(head);
    if (!this.rewriter) {
      if (this.wanted(head)) this.kept = [whole];
      return;
    }
    // Bytes of the head that went out before it could be judged: seen (on a copy), not rewritten.
    if (whole !== part)
      this.rewriter.push(Buffer.from(whole.subarray(0, whole.length - part.length)));
    this.holdBack = Math.min(this.rewriter.push(part), part.length);
  }

  private endFrame(): void {
    if (this.text && !this.decided && this.probeHave > 0) {
      // A payload shorter than the probe: decide on all of it.
      const head = Buffer.concat(this.probe, this.probeHave);
      if (this.wanted(head)) this.kept = [head];
    }
    if (this.kept) this.onWanted(Buffer.concat(this.kept));
    this.inPayload = false;
    this.kept = undefined;
    this.rewriter = undefined;
    this.holdBack = 0;
    this.decided = false;
    this.probe = [];
    this.probeHave = 0;
  }
}

function frame(opcode: number, payload: Buffer, masked: boolean): Buffer {
  const length = payload.length;
  const extended = length < 126 ? 0 : length < 65536 ? 2 : 8;
  const headerLength = 2 + extended + (masked ? 4 : 0);
  const out = Buffer.allocUnsafe(headerLength + length);
  out[0] = 0x80 | opcode;
  out[1] = (masked ? 0x80 : 0) | (extended === 0 ? length : extended === 2 ? 126 : 127);
  if (extended === 2) out.writeUInt16BE(length, 2);
  if (extended === 8) {
    out.writeUInt32BE(Math.floor(length / 2 ** 32), 2);
    out.writeUInt32BE(length >>> 0, 6);
  }
  // An all-zero mask leaves the payload as it is. Masking guards proxies in between against
  // script-made frames (RFC 6455 §10.3); towards our own Chromium on loopback there are none.
  if (masked) out.fill(0, 2 + extended, headerLength);
  payload.copy(out, headerLength);
  return out;
}

/** A text frame as a server sends it (unmasked), for the client. */
export function serverTextFrame(text: string): Buffer {
  return frame(OPCODE.text, Buffer.from(text, 'utf8'), false);
}

/** A text frame as a client sends it (masked), for Chromium. */
export function clientTextFrame(payload: Buffer): Buffer {
  return frame(OPCODE.text, payload, true);
}

/** A close frame as a server sends it, with a status code and reason, or none. */
export function serverCloseFrame(code?: number, reason = ''): Buffer {
  if (code === undefined) return frame(OPCODE.close, Buffer.alloc(0), false);
  const payload = Buffer.allocUnsafe(2 + Buffer.byteLength(reason));
  payload.writeUInt16BE(code, 0);
  payload.write(reason, 2, 'utf8');
  return frame(OPCODE.close, payload, false);
}
