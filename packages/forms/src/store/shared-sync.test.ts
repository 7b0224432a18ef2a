// The directory sync that concurrent uploads share (docs/forms.md#file-uploads): fewer syncs, and
// never one that began before the caller's change.
import { describe, expect, it } from 'vitest';
import { SharedSync } from './file-bytes.js';

/** A sync whose runs the test ends by hand, recording when each began. */
function manualSync() {
  const runs: { startedAt: number; end: (err?: Error) => void }[] = [];
  let clock = 0;
  const sync = new SharedSync(
    () =>
      new Promise<void>((resolve, reject) => {
        runs.push({
          startedAt: clock,
          end: (err) => {
            if (err) reject(err);
            else resolve();
          },
        });
      }),
  );
  return { sync, runs, tick: () => ++clock };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('a shared directory sync', () => {
  it('covers every call made while one runs with a single later sync', async () => {
    const { sync, runs, tick } = manualSync();
    const first = sync.sync();
    const callTimes: number[] = [];
    const waiting = Array.from({ length: 50 }, () => {
      callTimes.push(tick());
      return sync.sync();
    });
    expect(runs).toHaveLength(1);
    runs[0]?.end();
    await first;
    await settle();
    expect(runs).toHaveLength(2);
    // The second sync began after every call it answers.
    expect(runs[1]?.startedAt).toBeGreaterThanOrEqual(Math.max(...callTimes));
    runs[1]?.end();
    await Promise.all(waiting);
  });

  it('passes a failed sync to its callers, and the next caller gets a fresh one', async () => {
    const { sync, runs } = manualSync();
    const failed = sync.sync();
    const later = sync.sync();
    runs[0]?.end(new Error('EIO'));
    await expect(failed).rejects.toThrow('EIO');
    await settle();
    runs[1]?.end();
    await expect(later).resolves.toBeUndefined();
  });
});
