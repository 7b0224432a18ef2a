// What one door client has been told about targets, read from the browser's Target events as they
// pass the door: which page each of its CDP sessions drives, and which targets are browser-
// internal pages (devtools:, chrome:, chrome-untrusted:, file:) that no client may drive. The
// frame policy refuses a command aimed at one, whether the client attached itself or the browser
// auto-attached it (docs/sessions.md#what-the-door-allows).

const INTERNAL = /^(devtools|chrome|chrome-untrusted|file):/i;

/** A devtools:, chrome:, chrome-untrusted: or file: page: no client may drive it. */
export function isInternalUrl(url: string): boolean {
  return INTERNAL.test(url);
}

/** The events the door reads; Chromium writes an event's method first, so a frame's head shows it. */
export const WATCHED_EVENTS = [
  'Target.attachedToTarget',
  'Target.targetCreated',
  'Target.targetInfoChanged',
  'Target.detachedFromTarget',
] as const;

interface TargetEvent {
  method?: unknown;
  params?: {
    sessionId?: unknown;
    targetInfo?: { targetId?: unknown; url?: unknown };
  };
}

export class TargetWatch {
  /** Flat-mode sessionId → targetId. */
  private readonly sessions = new Map<string, string>();
  private readonly internal = new Set<string>();
  /** Targets whose URL the door has seen in an event. */
  private readonly seen = new Set<string>();

  /** Reads one browser event; anything else (or anything unparseable) is ignored. */
  note(payload: string): void {
    let event: TargetEvent;
    try {
      event = JSON.parse(payload) as TargetEvent;
    } catch {
      return;
    }
    const sessionId = event.params?.sessionId;
    if (event.method === 'Target.detachedFromTarget' && typeof sessionId === 'string') {
      this.sessions.delete(sessionId);
      return;
    }
    const info = event.params?.targetInfo;
    const targetId = info?.targetId;
    if (typeof targetId !== 'string') return;
    this.seen.add(targetId);
    // Once internal, always: a page that showed chrome:// stays closed to clients.
    if (typeof info?.url === 'string' && isInternalUrl(info.url)) this.internal.add(targetId);
    if (event.method === 'Target.attachedToTarget' && typeof sessionId === 'string') {
      this.sessions.set(sessionId, targetId);
    }
  }

  /** The target a CDP session drives, if the door saw it attach. */
  targetOf(sessionId: string): string | undefined {
    return this.sessions.get(sessionId);
  }

  /** True once an event told the door what the target shows. */
  known(targetId: string): boolean {
    return this.seen.has(targetId);
  }

  /** Records what the browser said a target shows, when the door asked it directly. */
  markInternal(targetId: string): void {
    this.internal.add(targetId);
  }

  /** True for a browser-internal target. */
  forbidden(targetId: string): boolean {
    return this.internal.has(targetId);
  }

  /** True for a CDP session attached to a browser-internal target. */
  blocked(sessionId: string): boolean {
    const targetId = this.sessions.get(sessionId);
    return targetId !== undefined && this.internal.has(targetId);
  }
}
