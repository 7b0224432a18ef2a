import { HttpError } from '@havn/shared';
import { describe, expect, it } from 'vitest';
import { RenderQueue } from './render-queue.js';

// Slots, first come first served, 503 after the queue timeout, aborts leave the line.

const never = new AbortController().signal;

describe('RenderQueue', () => {
  it('serves waiters in arrival order as slots free', async () => {
    const q = new RenderQueue({ slots: 1, timeoutMs: 10_000 });
    const first = await q.acquire(never);
    const order: number[] = [];
    const waiters = [1, 2, 3].map((n) =>
      q.acquire(never).then((release) => {
        order.push(n);
        return release;
      }),
    );
    expect({ inFlight: q.inFlight, queued: q.queued }).toEqual({ inFlight: 1, queued: 3 });
    first();
    first(); // idempotent: a second release frees nothing
    for (const w of waiters) (await w)();
    expect(order).toEqual([1, 2, 3]);
    expect({ inFlight: q.inFlight, queued: q.queued }).toEqual({ inFlight: 0, queued: 0 });
  });

  it('rejects with 503 after the queue timeout', async () => {
    const q = new RenderQueue({ slots: 1, timeoutMs: 50 });
    const release = await q.acquire(never);
    const err = await q.acquire(never).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HttpError);
    expect((err as HttpError).status).toBe(503);
    expect(q.queued).toBe(0);
    release();
  });

  it('drops a waiter whose client went away', async () => {
    const q = new RenderQueue({ slots: 1, timeoutMs: 10_000 });
    const release = await q.acquire(never);
    const gone = new AbortController();
    const waiting = q.acquire(gone.signal);
    expect(q.queued).toBe(1);
    gone.abort();
    await expect(waiting).rejects.toThrow();
    expect(q.queued).toBe(0);
    release();
    expect(q.inFlight).toBe(0);
  });
});
