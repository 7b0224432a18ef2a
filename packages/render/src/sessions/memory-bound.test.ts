import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attachToPage, rawClient } from './test-support/cdp-client.js';
import {
  BROWSERS,
  startSessionTestApp,
  type SessionTestApp,
} from './test-support/session-test-app.js';

// docs/render.md#memory-bounds for sessions: a page that allocates past BROWSER_MAX_MEMORY ends
// its own browser, and only its own. The session closes, its clients are told why, and another
// session goes on as if nothing happened. These tests run as root on a host with a memory
// controller (the service's CI machines): there each browser gets a memory cgroup.

const MiB = 1024 * 1024;
const BOUND = 512 * MiB;

// Keeps allocating 64 MiB buffers, each written through so that its memory is really taken.
const ALLOCATE = `(() => {
  const keep = [];
  const more = () => {
    try { for (let i = 0; i < 4; i++) keep.push(new Uint8Array(64 * 1024 * 1024).fill(7)); } catch {}
    setTimeout(more, 0);
  };
  more();
  return 'allocating';
})()`;

describe.each(BROWSERS)('a session over its memory bound, against %s', (chromiumPath) => {
  let t: SessionTestApp;
  beforeAll(async () => {
    t = await startSessionTestApp({ chromiumPath, maxMemoryBytes: BOUND });
  });
  afterAll(async () => {
    await t.close();
  });

  it('runs each browser in a memory cgroup of its own', () => {
    expect(t.runtime.memory.status).toEqual({
      enforced: true,
      cgroup: expect.stringMatching(/^v[12]$/) as string,
      bytes: BOUND,
    });
  });

  it('dies alone: its clients are told why, and another session is untouched', async () => {
    const greedy = await t.openSession();
    const calm = await t.openSession();
    const victim = await rawClient(greedy.cdpUrl);
    const closed = new Promise<{ code: number; reason: string }>((resolve) => {
      victim.ws.on('close', (code: number, reason: Buffer) => {
        resolve({ code, reason: reason.toString() });
      });
    });
    const page = await attachToPage(victim);
    const started = await victim.command('Runtime.evaluate', { expression: ALLOCATE }, page);
    expect((started.result?.['result'] as { value?: string }).value).toBe('allocating');

    expect(await closed).toEqual({
      code: 1001,
      reason: 'the browser went over BROWSER_MAX_MEMORY; session closed',
    });
    expect(t.overMemory()).toBe(1);
    await expect
      .poll(async () => (await t.api('GET', `/v1/sessions/${greedy.id}`)).status)
      .toBe(404);
    // Closed, its events still say why (docs/sessions.md#after-a-session-closes).
    const after = await t.api('GET', `/v1/sessions/${greedy.id}/events`);
    expect(after.status).toBe(200);
    expect(after.body).toEqual({
      id: greedy.id,
      state: 'closed',
      closedAt: expect.any(String) as string,
      closedBecause: 'over its memory bound',
      events: [
        {
          at: expect.any(String) as string,
          message: `the browser went over BROWSER_MAX_MEMORY (${String(BOUND)} bytes) and was stopped; the session is closed`,
        },
      ],
    });

    // The other session's browser still answers, and the service still opens sessions.
    const neighbour = await rawClient(calm.cdpUrl);
    try {
      const its = await attachToPage(neighbour);
      const sum = await neighbour.command('Runtime.evaluate', { expression: '6 * 7' }, its);
      expect((sum.result?.['result'] as { value?: number }).value).toBe(42);
    } finally {
      neighbour.close();
    }
    const next = await t.openSession();
    expect((await t.api('DELETE', `/v1/sessions/${next.id}`)).status).toBe(200);
    await t.api('DELETE', `/v1/sessions/${calm.id}`);
  });
});
