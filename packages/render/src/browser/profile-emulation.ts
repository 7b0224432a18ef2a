import WebSocket from 'ws';
import type { ContextProfile } from './profile-context.js';

// A profile applied to a browser that was launched without one: a pooled session browser, claimed
// by a session (docs/sessions.md#the-warm-pool). A freshly launched session browser gets its
// profile from Playwright's persistent-context options, which Playwright's connection applies to
// every page it attaches to, the pages of the contexts a client creates included, plus
// `--user-agent` for the workers. A pooled browser was launched before its profile was known, and
// Playwright cannot change a context's options afterwards, so the service makes the same
// Emulation calls itself, with the same values, on a CDP connection of its own (Playwright's
// public CDPSession cannot speak to the child sessions of auto-attach). Auto-attach with
// `waitForDebuggerOnStart` holds every new page until its overrides are in, so its first request
// and its first script already see the profile.

/** A profile as a session browser applies it: its context fields and its user agent. */
export interface EmulatedProfile extends ContextProfile {
  userAgent: string;
}

/** Bound on one answer from the browser; it answers on loopback at once unless wedged. */
const ANSWER_TIMEOUT_MS = 10_000;
/** The browser's messages to this connection are small (answers and attach events). */
const MAX_PAYLOAD_BYTES = 16 * 1024 * 1024;

/** The window frame around a fresh session's viewport (see sizeWindow). */
const FRAME = { width: 8, height: 85 + 46 };

type Params = Record<string, unknown>;
interface TargetInfo {
  targetId: string;
  type: string;
}

/**
 * Client hints as Playwright derives them from a user agent (its calculateUserAgentMetadata), for
 * the two kinds of user agent profileUserAgent makes: Linux desktop and Android.
 */
function userAgentMetadata(userAgent: string, isMobile: boolean): Params {
  const android = /Android (\d+(\.\d+)?(\.\d+)?)/.exec(userAgent);
  const platform = android ? 'Android' : /linux/i.test(userAgent) ? 'Linux' : 'Windows';
  return {
    mobile: isMobile,
    model: '',
    architecture: android || userAgent.includes('ARM') ? 'arm' : 'x86',
    platform,
    platformVersion: android?.[1] ?? '',
  };
}

/** The Emulation calls Playwright makes for a page of a context with these options, in order. */
export function pageOverrides(profile: EmulatedProfile): [string, Params][] {
  const { width, height } = profile.viewport;
  const orientation = profile.isMobile
    ? width > height
      ? { angle: 90, type: 'landscapePrimary' }
      : { angle: 0, type: 'portraitPrimary' }
    : { angle: 0, type: 'landscapePrimary' };
  return [
    [
      'Emulation.setDeviceMetricsOverride',
      {
        mobile: profile.isMobile,
        width,
        height,
        screenWidth: width,
        screenHeight: height,
        deviceScaleFactor: profile.deviceScaleFactor,
        screenOrientation: orientation,
      },
    ],
    ...(profile.hasTouch
      ? [['Emulation.setTouchEmulationEnabled', { enabled: true }] as [string, Params]]
      : []),
    [
      'Emulation.setUserAgentOverride',
      {
        userAgent: profile.userAgent,
        acceptLanguage: profile.locale,
        userAgentMetadata: userAgentMetadata(profile.userAgent, profile.isMobile),
      },
    ],
    ['Emulation.setLocaleOverride', { locale: profile.locale }],
    ['Emulation.setTimezoneOverride', { timezoneId: profile.timezone }],
    [
      'Emulation.setEmulatedMedia',
      {
        media: '',
        features: [
          { name: 'prefers-color-scheme', value: profile.colorScheme },
          { name: 'prefers-reduced-motion', value: 'no-preference' },
          { name: 'forced-colors', value: 'none' },
          { name: 'prefers-contrast', value: 'no-preference' },
        ],
      },
    ],
  ];
}

export class ProfileEmulation {
  private nextId = 0;
  private readonly pending = new Map<
    number,
    { resolve: (result: Params) => void; reject: (err: Error) => void; timer: NodeJS.Timeout }
  >();

  private constructor(
    private readonly socket: WebSocket,
    private readonly profile: EmulatedProfile,
  ) {
    socket.on('message', (data: Buffer) => {
      this.receive(data.toString('utf8'));
    });
    socket.on('close', () => {
      for (const call of this.pending.values()) {
        clearTimeout(call.timer);
        call.reject(new Error('the browser closed the connection'));
      }
      this.pending.clear();
    });
  }

  /**
   * Applies `profile` to every page the browser at `wsEndpoint` has and will have, in every
   * context, until close(). Resolves once the pages open now have it.
   */
  static async start(wsEndpoint: string, profile: EmulatedProfile): Promise<ProfileEmulation> {
    const socket = new WebSocket(wsEndpoint, {
      perMessageDeflate: false,
      maxPayload: MAX_PAYLOAD_BYTES,
      handshakeTimeout: ANSWER_TIMEOUT_MS,
    });
    await new Promise<void>((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    socket.on('error', () => undefined);
    const emulation = new ProfileEmulation(socket, profile);
    try {
      // Pages the browser has now are attached too, and answered once their overrides are in:
      // attach events arrive before the answer to setAutoAttach.
      const ready: Promise<void>[] = [];
      emulation.onAttached = (p) => ready.push(p);
      await emulation.send('Target.setAutoAttach', {
        autoAttach: true,
        waitForDebuggerOnStart: true,
        flatten: true,
        filter: [
          { type: 'page' },
          { type: 'service_worker' },
          { type: 'shared_worker' },
          { exclude: true },
        ],
      });
      emulation.onAttached = undefined;
      await Promise.all(ready);
      return emulation;
    } catch (err) {
      emulation.close();
      throw err;
    }
  }

  private onAttached: ((applied: Promise<void>) => void) | undefined;

  close(): void {
    this.socket.close();
  }

  private send(method: string, params: Params = {}, sessionId?: string): Promise<Params> {
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`the browser did not answer ${method}`));
      }, ANSWER_TIMEOUT_MS);
      this.pending.set(id, { resolve, reject, timer });
      this.socket.send(JSON.stringify({ id, method, params, ...(sessionId && { sessionId }) }));
    });
  }

  private receive(text: string): void {
    const message = JSON.parse(text) as {
      id?: number;
      method?: string;
      params?: Params;
      result?: Params;
      error?: { message: string };
    };
    if (message.id !== undefined) {
      const call = this.pending.get(message.id);
      if (!call) return;
      this.pending.delete(message.id);
      clearTimeout(call.timer);
      if (message.error) call.reject(new Error(message.error.message));
      else call.resolve(message.result ?? {});
      return;
    }
    if (message.method === 'Target.attachedToTarget') {
      const { sessionId, targetInfo, waitingForDebugger } = message.params as {
        sessionId: string;
        targetInfo: TargetInfo;
        waitingForDebugger: boolean;
      };
      const applied = this.apply(sessionId, targetInfo, waitingForDebugger);
      this.onAttached?.(applied);
    }
  }

  /**
   * The page's window as Playwright sizes a fresh session's: the viewport plus a Linux window
   * frame (8 px across, 85 px of title and tool bars and 46 of a persistent context's tab strip,
   * its figures for Linux), which a page reads as outerWidth and outerHeight.
   */
  private async sizeWindow(sessionId: string): Promise<void> {
    const { windowId } = await this.send('Browser.getWindowForTarget', {}, sessionId).catch(() => ({
      windowId: undefined,
    }));
    if (windowId === undefined) return;
    const { width, height } = this.profile.viewport;
    await this.send(
      'Browser.setWindowBounds',
      { windowId, bounds: { width: width + FRAME.width, height: height + FRAME.height } },
      sessionId,
    );
  }

  /**
   * The profile on one target, then the target let go. As Playwright does, the overrides are sent
   * and the target resumed at once, without waiting for their answers: a session handles its
   * commands in order, so they are in before the page runs, and some of them are only answered
   * once it does.
   */
  private async apply(
    sessionId: string,
    target: TargetInfo,
    waitingForDebugger: boolean,
  ): Promise<void> {
    const sent =
      target.type === 'page'
        ? [
            this.sizeWindow(sessionId),
            ...pageOverrides(this.profile).map(([method, params]) =>
              this.send(method, params, sessionId),
            ),
          ]
        : // Workers have no Emulation domain: the user agent alone, as --user-agent gives them.
          [
            this.send(
              'Network.setUserAgentOverride',
              { userAgent: this.profile.userAgent },
              sessionId,
            ),
          ];
    if (waitingForDebugger) sent.push(this.send('Runtime.runIfWaitingForDebugger', {}, sessionId));
    // A target that closed meanwhile: nothing to apply to.
    await Promise.all(sent.map((call) => call.catch(() => undefined)));
  }
}
