import { tokensEqual } from '@havn/shared';
import type { Static } from 'typebox';
import type { SessionBrowser } from '../browser/session-browser.js';
import type { ArtifactDescriptor, Labels } from '../artifacts/artifact-store.js';
import type { DoorSession } from './door/cdp-door.js';
import type { FramePolicy } from './door/cdp-frame-policy.js';
import { isInternalUrl } from './door/cdp-targets.js';
import type { Recorder } from './recording/recorder.js';
import type { SessionDescriptorSchema, SessionEvent } from './session-schemas.js';
import type { SessionDownloads } from './downloads/session-downloads.js';

// One live browser session (docs/sessions.md#leases): its lease, its own token, its browser, its
// recorder and the clients attached through the door.

/**
 * docs/sessions.md#open-a-session, as its schema says, without the URLs only creation adds. Its
 * `events`: what the user should know that no status said, oldest first (a download cancelled).
 */
export type SessionDescriptor = Omit<
  Static<typeof SessionDescriptorSchema>,
  'cdpUrl' | 'liveUrl' | 'watchUrl'
>;

export interface SessionParts {
  id: string;
  /** 24 random bytes, base64url. */
  token: string;
  /** The live view's read-only token: screencast and target list only, 24 random bytes. */
  viewToken: string;
  profile: string;
  labels: Labels;
  /** The session's own lease length, clamped; touch without ttlMs reuses it. */
  ttlMs: number;
  browser: SessionBrowser;
  recorder: Recorder | undefined;
  /** Everything the session wrote on disk: profile, downloads, frames. */
  dir: string;
  framePolicy: FramePolicy;
  /** Releases what the session holds besides its browser (proxy channel, uid). */
  cleanup: () => Promise<void>;
  now: () => number;
}

export class Session implements DoorSession {
  readonly id: string;
  readonly profile: string;
  readonly labels: Labels;
  readonly browser: SessionBrowser;
  readonly recorder: Recorder | undefined;
  readonly dir: string;
  readonly framePolicy: FramePolicy;
  readonly cleanup: () => Promise<void>;
  readonly artifacts: ArtifactDescriptor[] = [];
  readonly events: SessionEvent[] = [];
  /** Set by the manager once the session exists: its downloads become its artifacts. */
  downloads: SessionDownloads | undefined;
  readonly createdAt: number;
  ttlMs: number;
  expiresAt: number;
  /** Set once closing starts; the session takes no new clients or work after that. */
  closing: Promise<ArtifactDescriptor[]> | undefined;
  private readonly token: string;
  private readonly viewToken: string;
  private readonly clients = new Set<{ disconnect(why?: string): void }>();
  private readonly now: () => number;

  constructor(parts: SessionParts) {
    this.id = parts.id;
    this.token = parts.token;
    this.viewToken = parts.viewToken;
    this.profile = parts.profile;
    this.labels = parts.labels;
    this.browser = parts.browser;
    this.recorder = parts.recorder;
    this.dir = parts.dir;
    this.framePolicy = parts.framePolicy;
    this.cleanup = parts.cleanup;
    this.now = parts.now;
    this.ttlMs = parts.ttlMs;
    this.createdAt = parts.now();
    this.expiresAt = this.createdAt + parts.ttlMs;
  }

  get browserWsEndpoint(): string {
    return this.browser.wsEndpoint;
  }

  /** The DevTools socket of one of the session's pages, unless it is a browser-internal page. */
  async pageWsEndpoint(targetId: string): Promise<string | undefined> {
    const target = (await this.browser.targets()).find((t) => t.id === targetId);
    if (!target || target.type !== 'page' || isInternalUrl(target.url)) return undefined;
    return target.webSocketDebuggerUrl;
  }

  /**
   * Which of the session's tokens `token` is: its own (drives) or its view token (watches), and
   * neither once it closes. Who may do what with them is auth.ts's to say.
   */
  tokenRole(token: string): 'own' | 'view' | undefined {
    if (this.closing) return undefined;
    if (tokensEqual(token, this.token)) return 'own';
    if (tokensEqual(token, this.viewToken)) return 'view';
    return undefined;
  }

  /** The session's own token, for the door URLs the service hands out (never the service's). */
  doorToken(): string {
    return this.token;
  }

  /** The read-only token of the live view's watch link. */
  watchToken(): string {
    return this.viewToken;
  }

  /** Refreshes the lease by `ttlMs` (already clamped) or the session's own ttl. */
  touch(ttlMs?: number): void {
    if (ttlMs !== undefined) this.ttlMs = ttlMs;
    this.expiresAt = this.now() + this.ttlMs;
  }

  expired(): boolean {
    return this.now() >= this.expiresAt;
  }

  downloadEvent(text: string): void {
    this.downloads?.note(text);
  }

  /** Notes something for the session's `events`. */
  record(message: string): void {
    this.events.push({ at: new Date(this.now()).toISOString(), message });
  }

  activated(targetId: string): void {
    this.browser.activated(targetId);
  }

  attach(client: { disconnect(why?: string): void }): () => void {
    if (this.closing) {
      client.disconnect();
      return () => undefined;
    }
    this.clients.add(client);
    return () => this.clients.delete(client);
  }

  /** Disconnects every attached client (their token is dead from here on), telling them `why`. */
  disconnectAll(why?: string): void {
    for (const client of this.clients) client.disconnect(why);
    this.clients.clear();
  }

  describe(): SessionDescriptor {
    return {
      id: this.id,
      profile: this.profile,
      createdAt: new Date(this.createdAt).toISOString(),
      expiresAt: new Date(this.expiresAt).toISOString(),
      recording: this.recorder !== undefined,
      frames: this.recorder?.frameCount ?? 0,
      pages: this.browser.pageCount(),
      attached: this.clients.size,
      artifacts: [...this.artifacts],
      events: [...this.events],
    };
  }
}
