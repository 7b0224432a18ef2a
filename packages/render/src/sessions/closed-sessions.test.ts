import { describe, expect, it } from 'vitest';
import { ClosedSessions } from './closed-sessions.js';

// docs/sessions.md#after-a-session-closes: a closed session's record lasts as long as its
// artifacts, for a bounded number of sessions, and keeps its last events only.

describe('closed sessions', () => {
  it('forgets a record once its time is up', () => {
    let now = Date.parse('2026-11-27T06:00:00.000Z');
    const closed = new ClosedSessions(60_000, () => now);
    closed.add('a', 'over its memory bound', [{ at: 'x', message: 'why' }]);
    expect(closed.get('a')).toEqual({
      id: 'a',
      closedAt: '2026-11-27T06:00:00.000Z',
      closedBecause: 'over its memory bound',
      events: [{ at: 'x', message: 'why' }],
    });
    now += 59_999;
    expect(closed.get('a')).toBeDefined();
    now += 1;
    expect(closed.get('a')).toBeUndefined();
  });

  it('keeps the newest sessions past its bound, and each one’s last 200 events', () => {
    const closed = new ClosedSessions(60_000, () => 0, 3);
    for (const id of ['a', 'b', 'c', 'd']) closed.add(id, 'deleted', []);
    expect(['a', 'b', 'c', 'd'].map((id) => closed.get(id) !== undefined)).toEqual([
      false,
      true,
      true,
      true,
    ]);
    const many = Array.from({ length: 250 }, (_, i) => ({ at: String(i), message: `page ${i}` }));
    closed.add('e', 'lease expired', many);
    const events = closed.get('e')?.events ?? [];
    expect(events).toHaveLength(200);
    expect(events[0]).toEqual({ at: '50', message: 'page 50' });
  });
});
