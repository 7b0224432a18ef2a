import { readFileSync } from 'node:fs';
import { access } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processesWithHome } from '../test-support/browser-processes.js';
import { attachToPage, rawClient } from './test-support/cdp-client.js';
import { startSessionTestApp, type SessionTestApp } from './test-support/session-test-app.js';

// docs/sessions.md#disk: a page that stores more than SESSION_MAX_DISK_BYTES (here in IndexedDB,
// which Chromium lets an origin fill up to a share of the whole disk) ends its own session; its
// clients are told why, its events say so, and its folder is gone. A session under the bound
// goes on.

const MiB = 1024 * 1024;
const BOUND = 32 * MiB;

/** Stores `mib` MiB of random bytes (which no compression shrinks) in IndexedDB, 4 MiB a record. */
const store = (mib: number) => `(async () => {
  const db = await new Promise((ok, no) => {
    const open = indexedDB.open('fill', 1);
    open.onupgradeneeded = () => open.result.createObjectStore('blobs');
    open.onsuccess = () => ok(open.result);
    open.onerror = () => no(open.error);
  });
  for (let i = 0; i < ${mib / 4}; i++) {
    const bytes = new Uint8Array(4 * 1024 * 1024);
    for (let at = 0; at < bytes.length; at += 65536) crypto.getRandomValues(bytes.subarray(at, at + 65536));
    await new Promise((ok, no) => {
      const tx = db.transaction('blobs', 'readwrite');
      tx.objectStore('blobs').put(bytes, i);
      tx.oncomplete = ok;
      tx.onerror = () => no(tx.error);
    });
  }
  return 'stored';
})()`;

describe('a session over its disk bound', () => {
  let t: SessionTestApp;
  beforeAll(async () => {
    t = await startSessionTestApp({ maxDiskBytes: BOUND, diskCheckEveryMs: 200 });
  });
  afterAll(async () => {
    await t.close();
  });

  it('launches its browser with an HTTP cache of a quarter of the bound', async () => {
    const { id } = await t.openSession();
    const home = `${t.manager.get(id)!.dir}/home`;
    const flags = processesWithHome(home).map((pid) =>
      readFileSync(`/proc/${String(pid)}/cmdline`, 'latin1').split('\0'),
    );
    expect(flags.some((args) => args.includes(`--disk-cache-size=${String(BOUND / 4)}`))).toBe(
      true,
    );
    expect((await t.api('DELETE', `/v1/sessions/${id}`)).status).toBe(200);
  });

  it('is closed with its clients told why, and a session under the bound goes on', async () => {
    const greedy = await t.openSession();
    const calm = await t.openSession();
    const dir = t.manager.get(greedy.id)!.dir;
    const victim = await rawClient(greedy.cdpUrl);
    const closed = new Promise<{ code: number; reason: string }>((resolve) => {
      victim.ws.on('close', (code: number, reason: Buffer) => {
        resolve({ code, reason: reason.toString() });
      });
    });
    const page = await attachToPage(victim);
    // Not awaited: the session may close before the page is done storing.
    void victim.command('Runtime.evaluate', { expression: store(64), awaitPromise: true }, page);

    expect(await closed).toEqual({
      code: 1001,
      reason: 'the browser went over SESSION_MAX_DISK_BYTES; session closed',
    });
    const after = await t.api('GET', `/v1/sessions/${greedy.id}/events`);
    expect(after.body).toMatchObject({ state: 'closed', closedBecause: 'over its disk bound' });
    const [event] = (after.body as { events: { message: string }[] }).events;
    expect(event?.message).toMatch(
      new RegExp(
        `^the browser's profile went over SESSION_MAX_DISK_BYTES \\(${String(BOUND)} bytes\\) with (\\d+) bytes and was stopped; the session is closed$`,
      ),
    );
    expect(Number(/with (\d+) bytes/.exec(event!.message)?.[1])).toBeGreaterThan(BOUND);
    // What it stored went with its folder.
    await expect
      .poll(() =>
        access(dir).then(
          () => 'there',
          () => 'gone',
        ),
      )
      .toBe('gone');

    // The other session stores a little, and stays.
    const client = await rawClient(calm.cdpUrl);
    const calmPage = await attachToPage(client);
    const stored = await client.command(
      'Runtime.evaluate',
      { expression: store(8), awaitPromise: true, returnByValue: true },
      calmPage,
    );
    expect((stored.result?.['result'] as { value?: string }).value).toBe('stored');
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect((await t.api('GET', `/v1/sessions/${calm.id}`)).status).toBe(200);
    client.close();
    expect((await t.api('DELETE', `/v1/sessions/${calm.id}`)).status).toBe(200);
  }, 60_000);
});
