import { readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import puppeteer from 'puppeteer-core';
import type { Labels } from '../../artifacts/artifact-store.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attachToPage, rawClient } from '../test-support/cdp-client.js';
import {
  BROWSERS,
  startSessionTestApp,
  type SessionTestApp,
} from '../test-support/session-test-app.js';

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

  const artifactsOf = async (id: string) =>
    (await t.api('GET', `/v1/sessions/${id}`)).body['artifacts'] as Record<string, unknown>[];

  it('keeps the download of a Puppeteer client that set nothing up', async () => {
    const { id, cdpUrl } = await t.openSession();
    const browser = await puppeteer.connect({ browserWSEndpoint: cdpUrl, defaultViewport: null });
    try {
      const page = await browser.newPage();
      // Chromium ends a navigation that turns into a download as aborted, and downloads it.
      await expect(page.goto(`${t.fixture.url}/download?name=plain.csv`)).rejects.toThrow(
        /net::ERR_ABORTED/,
      );
      await expect
        .poll(() => artifactsOf(id), { timeout: 10_000 })
        .toMatchObject([{ contentType: 'text/csv', labels: { filename: 'plain.csv' } }]);
      const [artifact] = await artifactsOf(id);
      expect((await t.bytes(String(artifact!['id']))).toString()).toBe('downloaded plain.csv');
    } finally {
      await browser.disconnect();
      await t.api('DELETE', `/v1/sessions/${id}`);
    }
  });

  it("honours a Playwright client's acceptDownloads: false for its own context", async () => {
    const { id, cdpUrl } = await t.openSession();
    const browser = await chromium.connectOverCDP(cdpUrl);
    try {
      const refusing = await browser.newContext({ acceptDownloads: false });
      const page = await refusing.newPage();
      await page.goto(`${t.fixture.url}/`);
      await page.setContent(
        `<a id="get" href="${t.fixture.url}/download?name=refused.csv">get</a>`,
      );
      await page.click('#get');
      // Then one in the default context, where nobody said anything: it is kept, so by the time
      // it is listed the refused one, begun first, would be too.
      const [context] = browser.contexts();
      const other = context!.pages()[0] ?? (await context!.newPage());
      await other.setContent(`<a id="get" href="${t.fixture.url}/download?name=kept.csv">get</a>`);
      await other.click('#get');
      await expect
        .poll(async () => (await artifactsOf(id)).map((a) => (a['labels'] as Labels)['filename']), {
          timeout: 10_000,
        })
        .toEqual(['kept.csv']);
    } finally {
      await browser.close();
      await t.api('DELETE', `/v1/sessions/${id}`);
    }
  });

  it("keeps a download the page's own script starts, with no client attached", async () => {
    const { id } = await t.openSession({ url: `${t.fixture.url}/self-download` });
    await expect
      .poll(() => artifactsOf(id), { timeout: 10_000 })
      .toMatchObject([{ labels: { filename: 'self.csv' }, bytes: 'downloaded self.csv'.length }]);
    await t.api('DELETE', `/v1/sessions/${id}`);
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

/**
 * Every file under `dir` and its size, links not followed, but for Chromium's HTTP cache: it
 * keeps any large response a page loads, a download's or an image's alike, within its own size
 * bound, and it is not where a download lands.
 */
async function filesUnder(dir: string): Promise<{ path: string; size: number }[]> {
  const found: { path: string; size: number }[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || /\/Cache\/Cache_Data(\/|$)/.test(entry.parentPath)) continue;
    const path = join(entry.parentPath, entry.name);
    found.push({ path, size: (await stat(path).catch(() => ({ size: 0 }))).size });
  }
  return found;
}

describe.each(BROWSERS)('download bounds, against %s', (chromiumPath) => {
  const MiB = 1024 * 1024;
  let b: SessionTestApp;

  beforeAll(async () => {
    b = await startSessionTestApp({ chromiumPath, downloadMaxBytes: 5 * MiB, maxDownloads: 25 });
  });
  afterAll(async () => {
    await b.close();
  });

  const eventsOf = async (id: string) =>
    ((await b.api('GET', `/v1/sessions/${id}`)).body['events'] as { message: string }[]).map(
      (e) => e.message,
    );

  it('refuses Page.setDownloadBehavior, so a 40 MiB file cannot land past a 5 MiB cap', async () => {
    const { id, cdpUrl } = await b.openSession();
    const dir = b.manager.get(id)!.dir;
    const client = await rawClient(cdpUrl);
    try {
      const page = await attachToPage(client);
      const set = await client.command(
        'Page.setDownloadBehavior',
        { behavior: 'allow', downloadPath: join(dir, 'downloads') },
        page,
      );
      expect(set.error?.message).toMatch(/only deny .*Browser\.setDownloadBehavior/);
      await client.command(
        'Page.navigate',
        { url: `${b.fixture.url}/download?name=big.bin&size=${40 * MiB}&at=once` },
        page,
      );
      // Whatever the browser does with it by default, nothing over the cap stays in the folder
      // (the cancel, or the folder's sweep, can take its time on a loaded machine).
      await new Promise((resolve) => setTimeout(resolve, 2000));
      await expect
        .poll(async () => (await filesUnder(dir)).filter((f) => f.size > 5 * MiB), {
          timeout: 30_000,
        })
        .toEqual([]);
      expect((await b.api('GET', `/v1/sessions/${id}`)).body['artifacts']).toEqual([]);
    } finally {
      client.close();
      await b.api('DELETE', `/v1/sessions/${id}`);
    }
  });

  it('deletes a file that grows past the cap in the downloads folder without any event', async () => {
    const { id } = await b.openSession();
    const downloads = join(b.manager.get(id)!.dir, 'downloads');
    await writeFile(join(downloads, 'sideways.bin'), Buffer.alloc(6 * MiB));
    await expect
      .poll(() => eventsOf(id), { timeout: 10_000 })
      .toContain('download sideways.bin deleted: it is over DOWNLOAD_MAX_BYTES (5242880 bytes)');
    expect(await readdir(downloads)).toEqual([]);
    await b.api('DELETE', `/v1/sessions/${id}`);
  });

  it('keeps 25 downloads of a session and refuses the 26th (SESSION_MAX_DOWNLOADS)', async () => {
    const { id, cdpUrl } = await b.openSession();
    const client = await rawClient(cdpUrl);
    try {
      const page = await attachToPage(client);
      await client.command('Browser.setDownloadBehavior', {
        behavior: 'allowAndName',
        downloadPath: '/tmp',
      });
      for (let n = 1; n <= 26; n++) {
        await client.command(
          'Page.navigate',
          { url: `${b.fixture.url}/download?name=part-${n}.csv` },
          page,
        );
        // One at a time: each ends (completed, or cancelled) before the next begins.
        await client.event(
          (e) =>
            e.method === 'Browser.downloadProgress' &&
            (e.params?.['state'] === 'completed' || e.params?.['state'] === 'canceled'),
        );
        client.events.length = 0;
      }
      await expect
        .poll(
          async () =>
            ((await b.api('GET', `/v1/sessions/${id}`)).body['artifacts'] as unknown[]).length,
          { timeout: 10_000 },
        )
        .toBe(25);
      expect(await eventsOf(id)).toContain(
        'download part-26.csv cancelled: the session has had SESSION_MAX_DOWNLOADS (25) downloads',
      );
    } finally {
      client.close();
      await b.api('DELETE', `/v1/sessions/${id}`);
    }
  });
});
