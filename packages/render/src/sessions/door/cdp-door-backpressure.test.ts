import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { rawClient } from '../test-support/cdp-client.js';
import {
  BROWSERS,
  startSessionTestApp,
  type SessionTestApp,
} from '../test-support/session-test-app.js';
import { startSlowDns, type SlowDns } from '../test-support/slow-dns.js';

// The door while a verdict waits on a slow DNS answer (docs/sessions.md#where-the-door-waits):
// it stops reading the client, bounds what it holds, gives up on the answer after a while, and
// caps the look-ups a session may have unanswered. The names are `.test` names answered by a DNS
// server on loopback 20 s late, the resolver the door's address checks use in these tests.

const MiB = 1024 * 1024;
const VERDICT_TIMEOUT_MS = 1500;

describe.each(BROWSERS)('the door waiting on a slow DNS answer, against %s', (chromiumPath) => {
  let t: SessionTestApp;
  let dns: SlowDns;
  let session: { id: string; cdpUrl: string };

  beforeAll(async () => {
    dns = await startSlowDns(20_000);
    t = await startSessionTestApp({
      chromiumPath,
      resolve: dns.resolve,
      verdictTimeoutMs: VERDICT_TIMEOUT_MS,
    });
    session = await t.openSession();
  });
  afterAll(async () => {
    await t.close();
    await dns.close();
  });

  it('closes a client that floods while a navigation is checked with 1008, holding its memory', async () => {
    const ws = new WebSocket(session.cdpUrl);
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    let closed: { code: number; reason: string } | undefined;
    ws.on('close', (code, reason) => {
      closed = { code, reason: reason.toString() };
    });
    ws.on('error', () => undefined);
    const before = process.memoryUsage().rss;
    let growth = 0;
    ws.send(
      JSON.stringify({
        id: 1,
        method: 'Target.createTarget',
        params: { url: 'http://flood.test/' },
      }),
    );
    const flood = JSON.stringify({ id: 2, method: 'Browser.getVersion' });
    const until = Date.now() + 20_000;
    // As fast as the socket takes it, keeping this process's own send buffer small.
    while (closed === undefined && Date.now() < until && growth < 100 * MiB) {
      while (ws.readyState === WebSocket.OPEN && ws.bufferedAmount < 4 * MiB) {
        for (let i = 0; i < 1000; i++) ws.send(flood);
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
      growth = Math.max(growth, process.memoryUsage().rss - before);
    }
    ws.terminate();
    expect(closed?.code).toBe(1008);
    expect(closed?.reason).toMatch(/while a navigation was being checked/);
    expect(growth).toBeLessThan(100 * MiB);
    // The session lives on for its other clients.
    const client = await rawClient(session.cdpUrl);
    expect((await client.command('Browser.getVersion')).result).toHaveProperty('product');
    client.close();
  });

  it('refuses a navigation whose address check does not answer in time, and goes on', async () => {
    const client = await rawClient(session.cdpUrl);
    try {
      const [navigation, after] = await Promise.all([
        client.command('Target.createTarget', { url: 'http://late.test/' }),
        client.command('Browser.getVersion'),
      ]);
      expect(navigation.error?.message).toBe(
        `havn: Target.createTarget: the address check of late.test did not answer within ${VERDICT_TIMEOUT_MS} ms; Target.createTarget refused`,
      );
      // What came after it waited for the verdict, and then went through.
      expect(after.result).toHaveProperty('product');
    } finally {
      client.close();
    }
  });

  it('caps the look-ups a session has unanswered, the timed-out ones included', async () => {
    // flood.test and late.test are still unanswered: a third name is refused without a look-up.
    const client = await rawClient(session.cdpUrl);
    try {
      const reply = await client.command('Target.createTarget', { url: 'http://third.test/' });
      expect(reply.error?.message).toBe(
        'havn: Target.createTarget: 2 address look-ups of this session are still unanswered; retry when one has answered',
      );
      expect(dns.asked).toEqual(['flood.test', 'late.test']);
    } finally {
      client.close();
    }
  });
});
