import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSessionTestApp, type SessionTestApp } from './test-support/session-test-app.js';

// What a session's pages download becomes an artifact of the session, named and typed as it
// came; a download past DOWNLOAD_MAX_BYTES is cancelled, and the session says so.

let t: SessionTestApp;

beforeAll(async () => {
  t = await startSessionTestApp({ downloadMaxBytes: 64 * 1024 });
});
afterAll(async () => {
  await t.close();
});

async function download(
  cdpUrl: string,
  query: string,
  whileOpen: () => Promise<void> = () => new Promise((resolve) => setTimeout(resolve, 500)),
): Promise<void> {
  const browser = await chromium.connectOverCDP(cdpUrl);
  try {
    const context = await browser.newContext({ acceptDownloads: true });
    const page = await context.newPage();
    await page.goto(`${t.fixture.url}/`);
    await page.setContent(`<a id="get" href="${t.fixture.url}/download?${query}">get</a>`);
    await page.click('#get');
    // Closing the context would stop a download itself: check what happened while it is open.
    await whileOpen();
    await context.close();
  } finally {
    await browser.close();
  }
}

describe('downloads', () => {
  it('keeps what a page downloads as an artifact of the session, with its name and labels', async () => {
    const { id, cdpUrl } = await t.openSession({ labels: { job: 'export' } });
    await download(cdpUrl, 'name=report.csv');
    const artifacts = async () =>
      (await t.api('GET', `/v1/sessions/${id}`)).body['artifacts'] as Record<string, unknown>[];
    await expect.poll(artifacts, { timeout: 10_000 }).toMatchObject([
      {
        contentType: 'text/csv',
        bytes: 'downloaded report.csv'.length,
        labels: { job: 'export', filename: 'report.csv' },
        session: id,
      },
    ]);
    const [artifact] = await artifacts();
    expect((await t.bytes(String(artifact!['id']))).toString()).toBe('downloaded report.csv');
    const closed = await t.api('DELETE', `/v1/sessions/${id}`);
    expect(closed.body['artifacts']).toMatchObject([{ id: artifact!['id'] }]);
  });

  it('cancels a download past DOWNLOAD_MAX_BYTES and says so in the session', async () => {
    const { id, cdpUrl } = await t.openSession();
    const session = async () => (await t.api('GET', `/v1/sessions/${id}`)).body;
    const downloads = join(t.manager.get(id)!.dir, 'downloads');
    // 8 MiB trickling out over 2.6 s: past 64 KiB the service stops it, long before the end.
    await download(cdpUrl, `name=huge.bin&size=${8 * 1024 * 1024}`, async () => {
      await expect
        .poll(async () => (await session())['events'], { timeout: 10_000 })
        .toMatchObject([
          { message: expect.stringMatching(/huge\.bin cancelled.*DOWNLOAD_MAX_BYTES/) as unknown },
        ]);
      await new Promise((resolve) => setTimeout(resolve, 3500));
      for (const name of await readdir(downloads)) {
        expect((await stat(join(downloads, name))).size, name).toBeLessThan(1024 * 1024);
      }
    });
    expect((await session())['artifacts']).toEqual([]);
    await t.api('DELETE', `/v1/sessions/${id}`);
  });
});
