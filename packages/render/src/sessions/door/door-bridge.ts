import { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import type { DoorSession } from './cdp-door.js';
import {
  laterCheck,
  refusalText,
  type CdpCommand,
  type FrameJudge,
  type LaterCheck,
} from './cdp-frame-policy.js';
import { TargetWatch, WATCHED_EVENTS } from './cdp-targets.js';
import { DOWNLOAD_EVENTS } from '../downloads/session-downloads.js';
import { TraceRedactor } from './trace-redactor.js';
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

// One client attached through the CDP door: bytes between the client's socket and the session's
// DevTools socket, both past their WebSocket handshakes. Every client message is read whole and
// judged (cdp-frame-policy.ts) before it goes on; Chromium's bytes go to the client as they came,
// with only their frame boundaries followed, so that the door's own frames (refusal replies, a
// close) go out between two of Chromium's, never inside one.
//
// Whatever the door waits on, it stops reading the client meanwhile, so a client cannot make it
// hold more than one read's worth of messages (docs/sessions.md#where-the-door-waits): a verdict
// that needs a DNS answer or the browser's target list, Chromium's socket that is not taking
// bytes, the client's own socket that is not taking the door's replies, and the door's replies
// waiting for the end of one of Chromium's frames.

// How long a client has to hang up after the door's close frame before it is cut off.
const CLOSE_GRACE_MS = 2000;
const WATCHED = [...WATCHED_EVENTS, ...DOWNLOAD_EVENTS].map((method) => Buffer.from(`"${method}"`));
const DOWNLOAD = Buffer.from('"Browser.download');
// An IO.read answer in text: a trace's, among others (docs/sessions.md#traces).
const TEXT_READ = Buffer.from('"result":{"base64Encoded":false,"data":"');
// Chromium writes an event's method first, and an answer's id then its result's first fields, so
// only the head of a frame needs looking at (room for an id of 16 digits).
const PROBE_LENGTH = 72;

/** How much a bridge holds for a client, and how long it waits on a verdict. */
export interface BridgeLimits {
  /** The largest client message read whole (CDP_MAX_MESSAGE_BYTES); Chromium's are never held. */
  maxMessageBytes: number;
  /** Messages held while a verdict is pending; past either bound the client is closed with 1008. */
  backlogMessages: number;
  backlogBytes: number;
  /** How long a verdict may take before the command is refused. */
  verdictTimeoutMs: number;
  /** False only in the sessions bench, to measure the door as it was before it paused. */
  pause?: boolean;
}

/** Why the client's socket is not being read; it is read again when no reason is left. */
type Hold = 'verdict' | 'browser' | 'client' | 'held';

export const BACKLOG_MESSAGES = 1000;
export const VERDICT_TIMEOUT_MS = 5000;

export class DoorBridge {
  private readonly reader: ClientFrameReader;
  private readonly scanner: ServerFrameScanner;
  /** What the browser told this client about targets (bringToFront, internal pages). */
  private readonly targets = new TargetWatch();
  /** The door's frames for the client, waiting for the end of the frame Chromium is sending. */
  private held: Buffer[] = [];
  /** Chromium's bytes held back for a rewrite that needs the next read (fromBrowser). */
  private carry: Buffer[] = [];
  /** Client messages that came while a navigation's URL was being judged, kept in order. */
  private backlog: { payload: Buffer; raw: Buffer | undefined }[] | undefined;
  private backlogBytes = 0;
  private readonly holds = new Set<Hold>();
  private ended = false;
  private readonly attachedAt = Date.now();
  private readonly detach: () => void;

  constructor(
    private readonly session: DoorSession,
    private readonly client: Duplex,
    private readonly browser: Socket,
    private readonly log: FastifyBaseLogger,
    private readonly onEnd: () => void,
    private readonly limits: BridgeLimits,
    private readonly judgeFrame: FrameJudge,
    /** A driving client's frames keep the session alive; a watcher's do not. */
    private readonly keepsAlive: boolean,
  ) {
    this.reader = new ClientFrameReader(limits.maxMessageBytes);
    this.scanner = new ServerFrameScanner(
      PROBE_LENGTH,
      (head) => WATCHED.some((method) => head.includes(method)),
      (payload) => {
        const text = payload.toString('utf8');
        if (payload.subarray(0, PROBE_LENGTH).includes(DOWNLOAD)) this.session.downloadEvent(text);
        else this.targets.note(text);
      },
      (head) => (head.includes(TEXT_READ) ? new TraceRedactor() : undefined),
    );
    this.log.info({ session: session.id }, 'cdp client attached');
    if (client instanceof Socket) client.setNoDelay(true);
    browser.setNoDelay(true);
    client.on('data', (chunk: Buffer) => {
      this.fromClient(chunk);
    });
    browser.on('data', (chunk: Buffer) => {
      this.fromBrowser(chunk);
    });
    // Either side hanging up (or half-closing: the HTTP server's sockets allow half-open) ends
    // the bridge. Chromium gone without a close frame of its own: the client still gets one.
    for (const event of ['end', 'close', 'error']) {
      client.on(event, () => {
        this.end();
      });
      browser.on(event, () => {
        this.end(serverCloseFrame());
      });
    }
    this.detach = session.attach({
      disconnect: (why) => {
        this.end(serverCloseFrame(CLOSE.goingAway, why ?? 'session closed'));
      },
    });
  }

  /** Feeds bytes each side sent along with its handshake. */
  start(clientHead: Buffer, browserHead: Buffer): void {
    if (browserHead.length > 0) this.fromBrowser(browserHead);
    if (clientHead.length > 0) this.fromClient(clientHead);
  }

  /** Ends the bridge; the client gets `closeFrame` when one can go out between frames. */
  end(closeFrame?: Buffer): void {
    if (this.ended) return;
    this.ended = true;
    this.detach();
    this.onEnd();
    this.browser.destroy();
    if (closeFrame && this.scanner.atBoundary && !this.scanner.sawClose)
      this.client.end(closeFrame);
    else this.client.end();
    // The client answers a close and hangs up; one that does not is cut off.
    setTimeout(() => this.client.destroy(), CLOSE_GRACE_MS).unref();
    this.log.info(
      { session: this.session.id, ms: Date.now() - this.attachedAt },
      'cdp client detached',
    );
  }

  private fromClient(chunk: Buffer): void {
    if (this.ended) return;
    // Any inbound CDP traffic of a driving client keeps the session alive (docs/sessions.md#leases).
    if (this.keepsAlive) this.session.touch();
    // Everything one read carries leaves in one write.
    this.browser.cork();
    this.reader.push(chunk, (event) => {
      this.fromReader(event);
    });
    this.browser.uncork();
    if (this.browser.writableNeedDrain) this.holdUntilDrained('browser', this.browser);
    if (this.client.writableNeedDrain) this.holdUntilDrained('client', this.client);
  }

  private fromReader(event: ClientEvent): void {
    if (this.ended) return;
    if (event.kind === 'control') this.browser.write(event.raw);
    else if (event.kind === 'error') this.end(serverCloseFrame(event.code, event.reason));
    else this.judge(event.payload, event.raw);
  }

  /** Stops reading the client for `reason` (docs/sessions.md#where-the-door-waits). */
  private hold(reason: Hold): void {
    if (this.limits.pause === false) return;
    if (this.holds.size === 0) this.client.pause();
    this.holds.add(reason);
  }

  private release(reason: Hold): void {
    if (!this.holds.delete(reason) || this.holds.size > 0 || this.ended) return;
    this.client.resume();
  }

  private holdUntilDrained(reason: 'browser' | 'client', socket: Duplex): void {
    if (this.holds.has(reason)) return;
    this.hold(reason);
    socket.once('drain', () => {
      this.release(reason);
    });
  }

  private fromBrowser(chunk: Buffer): void {
    if (this.ended) return;
    const firstEnd = this.scanner.scan(chunk);
    const out = this.carry;
    this.carry = [];
    if (this.held.length > 0 && firstEnd >= 0) {
      out.push(chunk.subarray(0, firstEnd), ...this.held, chunk.subarray(firstEnd));
      this.held = [];
      this.release('held');
    } else out.push(chunk);
    // The few bytes a rewrite still needs to see the end of (trace-redactor.ts) wait for the next
    // read; they lie inside a frame that has not ended, so after any of the door's frames.
    for (let keep = this.scanner.holdBack; keep > 0;) {
      const last = out.pop() as Buffer;
      const take = Math.min(keep, last.length);
      this.carry.unshift(last.subarray(last.length - take));
      if (take < last.length) out.push(last.subarray(0, last.length - take));
      keep -= take;
    }
    let flowing = true;
    for (const bytes of out) flowing = this.client.write(bytes);
    if (!flowing) pause(this.browser, this.client);
  }

  private toClient(frame: Buffer): void {
    if (this.scanner.atBoundary) this.client.write(frame);
    else {
      // Until Chromium's frame ends, further replies would only pile up: stop reading the client.
      this.held.push(frame);
      this.hold('held');
    }
  }

  /** One whole client message: forwarded as it came, rewritten, or answered with a refusal. */
  private judge(payload: Buffer, raw: Buffer | undefined): void {
    if (this.ended) return;
    if (this.backlog) {
      this.keepForLater(payload, raw);
      return;
    }
    const text = payload.toString('utf8');
    const verdict = this.judgeFrame(text, this.session.framePolicy, this.targets);
    if (!verdict.ok) {
      this.toClient(serverTextFrame(verdict.reply));
      return;
    }
    const pending = laterCheck(verdict.command, this.session.framePolicy, this.targets);
    if (!pending) {
      this.forward(verdict.command, verdict.text, text, raw);
      return;
    }
    // Hold every later message until the check answers, so the browser still sees them in the
    // order they were sent, and read no more of them meanwhile.
    this.backlog = [];
    this.backlogBytes = 0;
    this.hold('verdict');
    void this.settle(pending, verdict.command).then((refused) => {
      if (this.ended) return;
      if (refused === undefined) this.forward(verdict.command, verdict.text, text, raw);
      else {
        const reply = refusalText(verdict.command, `${verdict.command.method}: ${refused}`);
        this.toClient(serverTextFrame(reply));
      }
      const waiting = this.backlog ?? [];
      this.backlog = undefined;
      for (const message of waiting) this.judge(message.payload, message.raw);
      // A message of the backlog may have started a check of its own.
      if (!this.checking()) this.release('verdict');
    });
  }

  private checking(): boolean {
    return this.backlog !== undefined;
  }

  /** A message that came in the same read as one being checked; past the bounds, 1008. */
  private keepForLater(payload: Buffer, raw: Buffer | undefined): void {
    const backlog = this.backlog ?? [];
    this.backlogBytes += payload.length;
    if (
      backlog.length >= this.limits.backlogMessages ||
      this.backlogBytes > this.limits.backlogBytes
    ) {
      this.end(
        serverCloseFrame(
          CLOSE.policyViolation,
          `more than ${this.limits.backlogMessages} messages or ${this.limits.backlogBytes} bytes sent while a navigation was being checked`,
        ),
      );
      return;
    }
    backlog.push({ payload, raw });
  }

  /** The check's refusal, undefined to let the command go, or a refusal once it takes too long. */
  private settle(check: LaterCheck, command: CdpCommand): Promise<string | undefined> {
    const ms = this.limits.verdictTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<string>((resolve) => {
      timer = setTimeout(() => {
        resolve(`${check.awaiting} did not answer within ${ms} ms; ${command.method} refused`);
      }, ms);
    });
    const verdict = check.verdict.catch(
      (err: unknown) => `${check.awaiting} failed: ${(err as Error).message}`,
    );
    return Promise.race([verdict, late]).finally(() => {
      clearTimeout(timer);
    });
  }

  /** Sends a judged message on to Chromium, noting the targets a client brings forward. */
  private forward(
    command: CdpCommand,
    judged: string,
    text: string,
    raw: Buffer | undefined,
  ): void {
    const { method, params, sessionId } = command;
    if (method === 'Target.activateTarget' && typeof params?.['targetId'] === 'string') {
      this.session.activated(params['targetId']);
    } else if (method === 'Page.bringToFront' && sessionId) {
      const targetId = this.targets.targetOf(sessionId);
      if (targetId) this.session.activated(targetId);
    }
    // A message that came as one text frame and passes unchanged goes on as that frame.
    const asSent = judged === text && raw && (raw.readUInt8(0) & 0x0f) === OPCODE.text;
    this.browser.write(asSent ? raw : clientTextFrame(Buffer.from(judged, 'utf8')));
  }
}

/** Stops reading `from` until `to` has drained what it was given. */
function pause(from: Duplex, to: Duplex): void {
  from.pause();
  to.once('drain', () => from.resume());
}
