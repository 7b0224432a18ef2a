import type { Static } from 'typebox';
import type { SessionEvent, SessionEventsSchema } from './session-schemas.js';

// What is left of a closed session to read (docs/sessions.md#after-a-session-closes): how it
// ended and its events, which say why when the service ended it (a browser over its memory
// bound, a lease run out). Kept in memory as long as the session's artifacts, and for a bounded
// number of sessions, the oldest forgotten first, so a flood of short sessions costs no more
// than MAX_KEPT small records.

/** How a session ended, for its log line and its record, as `closedBecause` names it. */
export type CloseReason = NonNullable<Static<typeof SessionEventsSchema>['closedBecause']>;

export interface ClosedSession {
  readonly id: string;
  readonly closedAt: string;
  readonly closedBecause: CloseReason;
  readonly events: readonly SessionEvent[];
}

const MAX_KEPT = 1000;
/** The last events of a session kept (a page that opens popups in a loop has one per popup). */
const MAX_EVENTS = 200;

export class ClosedSessions {
  private readonly kept = new Map<string, { record: ClosedSession; until: number }>();

  constructor(
    private readonly keepMs: number,
    private readonly now: () => number,
    private readonly maxKept = MAX_KEPT,
  ) {}

  add(id: string, closedBecause: CloseReason, events: readonly SessionEvent[]): void {
    const at = this.now();
    const record = {
      id,
      closedAt: new Date(at).toISOString(),
      closedBecause,
      events: events.slice(-MAX_EVENTS),
    };
    this.kept.set(id, { record, until: at + this.keepMs });
    // A Map iterates in insertion order: the first keys are the oldest.
    for (const old of this.kept.keys()) {
      if (this.kept.size <= this.maxKept) break;
      this.kept.delete(old);
    }
  }

  get(id: string): ClosedSession | undefined {
    const entry = this.kept.get(id);
    if (entry === undefined) return undefined;
    if (entry.until <= this.now()) {
      this.kept.delete(id);
      return undefined;
    }
    return entry.record;
  }
}
