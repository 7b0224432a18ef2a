import { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import type { DoorSession } from './cdp-door.js';
import { laterCheck, refusalText, type CdpCommand, type FrameJudge } from './cdp-frame-policy.js';
import { TargetWatch, WATCHED_EVENTS } from './cdp-targets.js';
import { DOWNLOAD_EVENTS } from './session-downloads.js';
import {
  CLOSE,
  ClientFrameReader,
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

// How long a client has to hang up after the door's close frame before it is cut off.
const CLOSE_GRACE_MS = 2000;
const WATCHED = [...WATCHED_EVENTS, ...DOWNLOAD_EVENTS].map((method) => Buffer.from(`"${method}"`));
const DOWNLOAD = Buffer.from('"Browser.download');
// Chromium writes an event's method first, so only the head of a frame needs looking at.
const PROBE_LENGTH = 48;

export class DoorBridge {
  private readonly reader: ClientFrameReader;
  private readonly scanner: ServerFrameScanner;
  /** What the browser told this client about targets (bringToFront, internal pages). */
  private readonly targets = new TargetWatch();
  /** The door's frames for the client, waiting for the end of the frame Chromium is sending. */
  private held: Buffer[] = [];
  /** Client messages that came while a navigation's URL was being judged, kept in order. */
  private backlog: { payload: Buffer; raw: Buffer | undefined }[] | undefined;
  private ended = false;
  private readonly attachedAt = Date.now();
  private readonly detach: () => void;

  constructor(
    private readonly session: DoorSession,
    private readonly client: Duplex,
    private readonly browser: Socket,
    private readonly log: FastifyBaseLogger,
    private readonly onEnd: () => void,
    /** The largest client message read whole; Chromium's frames are never held. */
    maxMessageBytes: number,
    private readonly judgeFrame: FrameJudge,
  ) {
    this.reader = new ClientFrameReader(maxMessageBytes);
    this.scanner = new ServerFrameScanner(
      PROBE_LENGTH,
      (head) => WATCHED.some((method) => head.includes(method)),
      (payload) => {
        const text = payload.toString('utf8');
        if (payload.subarray(0, PROBE_LENGTH).includes(DOWNLOAD)) this.session.downloadEvent(text);
        else this.targets.note(text);
      },
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
      disconnect: () => {
        this.end(serverCloseFrame(CLOSE.goingAway, 'session closed'));
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
    // Any inbound CDP traffic keeps the session alive (docs/sessions.md#leases).
    this.session.touch();
    // Everything one read carries leaves in one write.
    this.browser.cork();
    this.reader.push(chunk, (event) => {
      if (event.kind === 'control') this.browser.write(event.raw);
      else if (event.kind === 'error') this.end(serverCloseFrame(event.code, event.reason));
      else this.judge(event.payload, event.raw);
    });
    this.browser.uncork();
    if (this.browser.writableNeedDrain) pause(this.client, this.browser);
  }

  private fromBrowser(chunk: Buffer): void {
    if (this.ended) return;
    let rest = chunk;
    const firstEnd = this.scanner.scan(chunk);
    if (this.held.length > 0 && firstEnd >= 0) {
      this.client.write(chunk.subarray(0, firstEnd));
      for (const frame of this.held) this.client.write(frame);
      this.held = [];
      rest = chunk.subarray(firstEnd);
    }
    if (!this.client.write(rest)) pause(this.browser, this.client);
  }

  private toClient(frame: Buffer): void {
    if (this.scanner.atBoundary) this.client.write(frame);
    else this.held.push(frame);
  }

  /** One whole client message: forwarded as it came, rewritten, or answered with a refusal. */
  private judge(payload: Buffer, raw: Buffer | undefined): void {
    if (this.backlog) {
      this.backlog.push({ payload, raw });
      return;
    }
    const text = payload.toString('utf8');
    const verdict = this.judgeFrame(text, this.session.framePolicy, this.targets);
    if (!verdict.ok) {
      this.toClient(serverTextFrame(verdict.reply));
      return;
    }
    const pending = laterCheck(verdict.command, this.session.framePolicy, this.targets);
    if (pending) {
      // Hold every later message until the check answers, so the browser still sees them in
      // the order they were sent.
      this.backlog = [];
      void pending
        .catch(() => undefined)
        .then((refused) => {
          if (this.ended) return;
          if (refused === undefined) this.forward(verdict.command, verdict.text, text, raw);
          else {
            const reply = refusalText(verdict.command, `${verdict.command.method}: ${refused}`);
            this.toClient(serverTextFrame(reply));
          }
          const waiting = this.backlog ?? [];
          this.backlog = undefined;
          for (const message of waiting) this.judge(message.payload, message.raw);
        });
      return;
    }
    this.forward(verdict.command, verdict.text, text, raw);
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
