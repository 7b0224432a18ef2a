import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { randomToken, type HostPolicy, type Logger, type Resolver } from '@havn/shared';
import { renderErrors } from '../errors.js';
import { SessionBrowser } from '../browser/session-browser.js';
import type { ArtifactDescriptor, ArtifactStore, Labels } from '../artifacts/artifact-store.js';
import type { StateDescriptor } from '../artifacts/state-store.js';
import type { BrowserRuntime } from '../browser/browser-runtime.js';
import type { MemoryWatch } from '../browser/memory-cgroup.js';
import { profileUserAgent } from '../browser/profile-context.js';
import type { GuardProxy, ProxyChannel } from '../netguard/guard-proxy.js';
import { judgeHops } from '../netguard/navigation-hops.js';
import { checkRenderUrl } from '../netguard/url-check.js';
// Sessions save and start from the states renders start from too: one keeper of them.
import type { BrowserStates } from '../services/browser-states.js';
import { sessionAddressCheck } from './address-checks.js';
import { BrowserSlot } from './browser-slot.js';
import type { Profile } from '../profiles.js';
import { DEFAULT_RECORD, Recorder, type RecordOptions } from './recording/recorder.js';
import { DiskWatch } from './disk-watch.js';
import { ClosedSessions, type ClosedSession, type CloseReason } from './closed-sessions.js';
import { Session } from './session.js';
import { SessionDownloads } from './downloads/session-downloads.js';
import type { SessionConfig } from './session-config.js';
import type { PooledBrowser, SessionPool } from './session-pool.js';
import type { CreateSessionBody, ScreenshotBody } from './session-schemas.js';

// Opens, leases, reaps and closes browser sessions (docs/sessions.md). Closing is the same
// path for DELETE, the reaper, a browser that died and shutdown: recorder stopped, mp4 stitched,
// browser closed, in that order.

/** A resolved profile, as render's profile table produces it. */
export type SessionProfile = Omit<Profile, 'paper'>;

export interface SessionManagerDeps {
  config: SessionConfig;
  /** Each session's browser gets a proxy channel of its own, so its refusals are its own. */
  proxy: Pick<GuardProxy, 'openChannel'>;
  /** Binary, uid and sandbox of each session's browser (docs/render.md#browser-processes). */
  runtime: BrowserRuntime;
  artifacts: ArtifactStore;
  /** Saved browser states a session starts from and saves (docs/sessions.md#log-in-once-render-many-times). */
  states: BrowserStates;
  log: Logger;
  /** A name or inline profile → the resolved profile; throws HttpError 400 naming the field. */
  resolveProfile: (input: unknown) => SessionProfile;
  /** ALLOWED_HOSTS and ALLOW_PRIVATE_NETWORK, for the early check of `url`. */
  hostPolicy: HostPolicy;
  /** DNS for the door's address checks (tests answer `.test` names); the system's otherwise. */
  resolve?: Resolver;
  /** ALLOW_INSECURE_TLS=1: only then does `insecureTls` take effect. */
  allowInsecureTls: boolean;
  /** Bound on the initial navigation and on screenshots; default 30 s. */
  navigationTimeoutMs?: number;
  /** How long a session screenshot waits for its `selector`; default 10 s. */
  screenshotTimeoutMs?: number;
  /** How long stitching a recording may take on close before ffmpeg is killed (2 min). */
  stitchTimeoutMs?: number;
  reaperIntervalMs?: number;
  /** How often each session's disk use is read (docs/sessions.md#disk); 2 s by default. */
  diskCheckEveryMs?: number;
  now?: () => number;
  /** Parent of each session's own temp dir; default the OS temp dir. */
  tmpDir?: string;
  /** How long a closed session's events stay readable; ARTIFACT_TTL_MS, a day by default. */
  closedKeepMs?: number;
  /** Called when a session's browser went over BROWSER_MAX_MEMORY and was stopped (/metrics). */
  onOverMemory?: () => void;
  /** The warm pool (docs/sessions.md#the-warm-pool); without it every session launches its own. */
  pool?: SessionPool;
}

/** The create and screenshot bodies: the types come from the route schemas. */
export type CreateSessionInput = CreateSessionBody;
export type ScreenshotInput = ScreenshotBody;

const DAY_MS = 24 * 60 * 60 * 1000;
/** Bound on stitching a recording at close (docs/operations.md#ffmpeg-fails-at-stitch-time). */
const STITCH_TIMEOUT_MS = 120_000;

export class SessionManager {
  private readonly sessions = new Map<string, Session>();
  private readonly closingSessions = new Set<Session>();
  /** How recently closed sessions ended, and their events (docs/sessions.md#after-a-session-closes). */
  private readonly closed: ClosedSessions;
  private starting = 0;
  private accepting = true;
  private readonly reaper: NodeJS.Timeout;
  private readonly now: () => number;

  constructor(private readonly deps: SessionManagerDeps) {
    this.now = deps.now ?? Date.now;
    this.closed = new ClosedSessions(deps.closedKeepMs ?? DAY_MS, this.now);
    this.reaper = setInterval(() => {
      this.reap();
    }, deps.reaperIntervalMs ?? 1000);
    this.reaper.unref();
  }

  get config(): SessionConfig {
    return this.deps.config;
  }

  /** A slot is free: closing and starting sessions hold theirs (docs/sessions.md#behaviour-in-detail). */
  hasRoom(): boolean {
    const used = this.sessions.size + this.closingSessions.size + this.starting;
    return used < this.deps.config.maxSessions;
  }

  /** Live sessions, for `sessions` in GET /healthz. */
  liveCount(): number {
    return this.sessions.size;
  }

  get(id: string): Session | undefined {
    return this.sessions.get(id);
  }

  /** A session closed lately: how it ended and its events; undefined for a live or unknown one. */
  closedRecord(id: string): ClosedSession | undefined {
    return this.closed.get(id);
  }

  list(): Session[] {
    return [...this.sessions.values()];
  }

  /** The live session whose own token `token` is (discovery at the service root names it so). */
  ownerOf(token: string): Session | undefined {
    return this.list().find((session) => session.tokenRole(token) === 'own');
  }

  /** Everything is applied before the caller hears 201 (docs/sessions.md#open-a-session). */
  async create(input: CreateSessionInput): Promise<{ session: Session; token: string }> {
    if (!this.accepting) throw renderErrors.error('SHUTTING_DOWN');
    const profile = this.deps.resolveProfile(input.profile);
    if (input.url !== undefined) await checkRenderUrl(input.url, this.deps.hostPolicy);
    // Opened before a browser starts: an unknown or unreadable state answers at once.
    const state = input.state === undefined ? undefined : await this.deps.states.load(input.state);
    if (!this.hasRoom()) {
      throw renderErrors.error('SESSIONS_FULL', { max: this.deps.config.maxSessions });
    }
    this.starting++;
    const insecureTls = this.deps.allowInsecureTls && input.insecureTls === true;
    // Pooled browsers trust certificates as every browser does: insecureTls launches its own.
    const pooled: PooledBrowser | undefined = insecureTls ? undefined : this.deps.pool?.claim();
    let slot: BrowserSlot | undefined = pooled?.slot;
    let browser: SessionBrowser | undefined = pooled?.browser;
    let recorder: Recorder | undefined;
    let memory: MemoryWatch | undefined;
    let disk: DiskWatch | undefined;
    const cleanup = async (): Promise<void> => {
      memory?.stop();
      disk?.stop();
      await slot?.release();
    };
    try {
      slot ??= await BrowserSlot.open({
        ...this.deps,
        maxDiskBytes: this.deps.config.maxDiskBytes,
      });
      const { dir, downloadDir, workDir, uid, cgroup, channel } = slot;
      const claim = {
        ...profile,
        userAgent: profileUserAgent(this.deps.runtime.version, profile),
        headers: input.headers ?? {},
        cookies: input.cookies ?? [],
        state,
      };
      if (browser) {
        await browser.claim(claim);
      } else {
        browser = await SessionBrowser.launch({
          ...slot.launch,
          ...claim,
          ignoreHTTPSErrors: insecureTls,
        });
      }
      // docs/sessions.md#downloads: whatever the client sends, or with no client at all, from the
      // first page on; what comes before the session exists waits for it.
      const claimedDownloads = new Set<string>();
      const early: string[] = [];
      let onDownloadEvent = (text: string): void => {
        early.push(text);
      };
      await browser.followDownloads(
        downloadDir,
        (text) => {
          onDownloadEvent(text);
        },
        (context) => claimedDownloads.has(context),
      );
      // The recorder starts first, so the video shows the page loading.
      if (input.record) recorder = await this.startRecorder(browser, workDir, input.record);
      if (input.url !== undefined) await this.navigate(browser, input.url, channel);
      // From here the channel lives as long as the session: keep no list of its refusals.
      channel.forget();
      const token = randomToken(24);
      const launched = browser;
      const session = new Session({
        id: randomToken(16),
        token,
        viewToken: randomToken(24),
        profile: profile.name,
        labels: input.labels ?? {},
        ttlMs: this.clampTtl(input.ttlMs),
        browser,
        recorder,
        dir,
        framePolicy: {
          sessionDir: dir,
          downloadDir,
          claimDownloads: (context) => claimedDownloads.add(context),
          allowInsecureTls: insecureTls,
          limits: this.deps.config.limits,
          checkUrl: sessionAddressCheck(this.deps.hostPolicy, this.deps.resolve),
          targetUrl: async (targetId) =>
            (await launched.targets()).find((target) => target.id === targetId)?.url,
        },
        cleanup,
        now: this.now,
      });
      session.downloads = new SessionDownloads({
        dir: downloadDir,
        workDir,
        browserUid: uid,
        maxBytes: this.deps.config.downloadMaxBytes,
        maxDownloads: this.deps.config.maxDownloads,
        maxTotalBytes: this.deps.config.maxDownloadBytes,
        cancel: (guid) => launched.cancelDownload(guid),
        record: (message) => {
          session.record(message);
          this.deps.log.warn({ session: session.id }, message);
        },
        store: async ({ path, filename, contentType }) => {
          const artifact = await this.deps.artifacts.put({
            session: session.id,
            contentType,
            labels: { ...session.labels, filename },
            body: { path },
          });
          session.artifacts.push(artifact);
        },
      });
      session.downloads.watch();
      onDownloadEvent = (text) => {
        session.downloadEvent(text);
      };
      for (const text of early.splice(0)) session.downloadEvent(text);
      await launched.limitPages(this.deps.config.maxPages, (url) => {
        const message = `a page (${url || 'about:blank'}) was closed: SESSION_MAX_PAGES (${String(this.deps.config.maxPages)}) pages are open`;
        session.record(message);
        this.deps.log.warn({ session: session.id }, message);
      });
      this.sessions.set(session.id, session);
      memory = cgroup?.watch(() => {
        const bound = this.deps.runtime.memory.status;
        this.deps.onOverMemory?.();
        this.closeOverBound(
          session,
          'over its memory bound',
          `the browser went over BROWSER_MAX_MEMORY (${bound.enforced ? String(bound.bytes) : '?'} bytes) and was stopped; the session is closed`,
          'the browser went over BROWSER_MAX_MEMORY; session closed',
        );
      });
      const maxDisk = this.deps.config.maxDiskBytes;
      disk = new DiskWatch(
        slot.browserDirs,
        maxDisk,
        (held) => {
          this.closeOverBound(
            session,
            'over its disk bound',
            `the browser's profile went over SESSION_MAX_DISK_BYTES (${String(maxDisk)} bytes) with ${held} and was stopped; the session is closed`,
            'the browser went over SESSION_MAX_DISK_BYTES; session closed',
          );
        },
        this.deps.diskCheckEveryMs,
      );
      launched.onExit(() => {
        // A browser that ended over its bound closes as that, whichever was noticed first.
        if (!memory?.tripped()) this.closeInBackground(session, 'browser exited');
      });
      this.deps.log.info({ session: session.id, profile: profile.name }, 'session opened');
      return { session, token };
    } catch (err) {
      await recorder?.stop().catch(() => undefined);
      await browser?.close();
      await cleanup();
      if (slot) await rm(slot.dir, { recursive: true, force: true });
      throw err;
    } finally {
      this.starting--;
    }
  }

  /** `ttlMs` clamped; without it the session's own ttl (docs/sessions.md#leases). */
  touch(session: Session, ttlMs?: number): void {
    session.touch(ttlMs === undefined ? undefined : this.clampTtl(ttlMs));
  }

  /** A service-side capture of the current page, stored with the session's labels. */
  async screenshot(session: Session, input: ScreenshotInput): Promise<ArtifactDescriptor> {
    session.touch();
    const format = input.format ?? 'png';
    // 400 naming what is missing (no page, no visible element): the browser says so by code.
    const bytes = await session.browser.screenshot({
      selector: input.selector,
      fullPage: input.fullPage,
      format,
      timeoutMs: this.deps.screenshotTimeoutMs ?? 10_000,
    });
    const labels =
      input.label === undefined ? session.labels : { ...session.labels, label: input.label };
    const artifact = await this.deps.artifacts.put({
      session: session.id,
      contentType: `image/${format}`,
      labels,
      body: bytes,
    });
    session.artifacts.push(artifact);
    return artifact;
  }

  /**
   * Saves the session's state under `name` (docs/sessions.md#log-in-once-render-many-times): the
   * cookies, localStorage and IndexedDB of its default context. Refreshes the lease.
   */
  async saveState(
    session: Session,
    name: string,
    labels?: Labels,
    /** What a 400 for a bad name names: the body's `name`, or DELETE's `saveState`. */
    field = 'name',
  ): Promise<StateDescriptor> {
    this.deps.states.checkName(name, field);
    session.touch();
    return this.deps.states.save(name, await session.browser.readState(), labels);
  }

  /**
   * DELETE: recorder stopped, mp4 stitched, browser closed; every artifact returned. The same path
   * for every way a session ends, named in its log line (docs/sessions.md#recording).
   */
  close(
    session: Session,
    how: CloseReason = 'deleted',
    /** What attached clients are told as they are disconnected. */
    why?: string,
  ): Promise<ArtifactDescriptor[]> {
    session.closing ??= this.finish(session, how, why);
    return session.closing;
  }

  /** Graceful shutdown: take no more sessions, close every live one as DELETE does. */
  async closeAll(): Promise<void> {
    this.accepting = false;
    clearInterval(this.reaper);
    await Promise.all([
      this.deps.pool?.close(),
      ...this.list().map((s) => this.close(s, 'service shutdown')),
    ]);
    await Promise.all([...this.closingSessions].map((s) => s.closing ?? Promise.resolve([])));
  }

  /**
   * Ends a session over one of its bounds: `message` in its events and the log, `short` to its
   * clients (a close frame's reason holds 123 bytes).
   */
  private closeOverBound(session: Session, how: CloseReason, message: string, short: string): void {
    session.record(message);
    this.deps.log.warn({ session: session.id }, message);
    this.closeInBackground(session, how, short);
  }

  /** Closes a session nobody waits on (reaper, dead browser); a failure is logged, not thrown. */
  private closeInBackground(session: Session, how: CloseReason, why?: string): void {
    this.close(session, how, why).catch((err: unknown) => {
      this.deps.log.error({ session: session.id, err }, 'closing the session failed');
    });
  }

  private reap(): void {
    for (const session of this.sessions.values()) {
      if (session.expired()) {
        this.closeInBackground(session, 'lease expired');
      }
    }
  }

  private async finish(
    session: Session,
    how: CloseReason,
    why?: string,
  ): Promise<ArtifactDescriptor[]> {
    this.sessions.delete(session.id);
    this.closingSessions.add(session);
    this.closed.add(session.id, how, session.events);
    session.disconnectAll(why);
    session.downloads?.close();
    try {
      // Recorder stopped, then the mp4 stitched, then the browser closed.
      const video = await session.recorder
        ?.store(
          this.deps.artifacts,
          { session: session.id, labels: session.labels },
          {
            path: this.deps.config.ffmpegPath,
            timeoutMs: this.deps.stitchTimeoutMs ?? STITCH_TIMEOUT_MS,
          },
        )
        .catch((err: unknown) => {
          // docs/operations.md#ffmpeg-fails-at-stitch-time: the session closes all the same, and
          // its events (readable after the close) say the video is missing and why.
          const reason = err instanceof Error ? err.message : String(err);
          session.record(`the recording could not be stitched into a video: ${reason}`);
          this.deps.log.error(
            { session: session.id, err: reason },
            'recording could not be stitched',
          );
        });
      if (video) session.artifacts.push(video);
      await session.browser.close();
      await session.cleanup();
      // Again, with what closing added to the events (a video that could not be made).
      this.closed.add(session.id, how, session.events);
      this.deps.log.info(
        { session: session.id, how, artifacts: session.artifacts.map((a) => a.id) },
        `session closed (${how})`,
      );
      return [...session.artifacts];
    } finally {
      await rm(session.dir, { recursive: true, force: true }).catch(() => undefined);
      this.closingSessions.delete(session);
    }
  }

  private clampTtl(ttlMs: number | undefined): number {
    return Math.floor(Math.min(ttlMs ?? this.deps.config.ttlMs, this.deps.config.maxTtlMs));
  }

  /** The first page, judged hop by hop as a render is: 400 naming a refused hop, else 502. */
  private async navigate(
    browser: SessionBrowser,
    url: string,
    channel: ProxyChannel,
  ): Promise<void> {
    const { hops, failure } = await browser.navigate(url, this.deps.navigationTimeoutMs ?? 30_000);
    const verdict = judgeHops(hops, channel);
    if (verdict && 'refused' in verdict) {
      throw renderErrors.error('SESSION_NAVIGATION_REFUSED', { reason: verdict.refused.message });
    }
    const reason = verdict ? verdict.unreachable.reason : failure;
    if (reason !== undefined) throw renderErrors.error('NAVIGATION_FAILED', { reason });
  }

  private async startRecorder(
    browser: SessionBrowser,
    workDir: string,
    record: true | Partial<RecordOptions>,
  ): Promise<Recorder> {
    const options = record === true ? DEFAULT_RECORD : { ...DEFAULT_RECORD, ...record };
    const framesDir = join(workDir, 'frames');
    await mkdir(framesDir);
    const recorder = new Recorder(framesDir, options, this.now);
    await recorder.start(browser);
    return recorder;
  }
}
