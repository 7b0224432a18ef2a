import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import puppeteer from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BROWSERS,
  startSessionTestApp,
  type SessionTestApp,
} from '../test-support/session-test-app.js';

// The clients the door's allow-list is made for, doing what their users do, against both of
// Debian's builds: contexts, pages, tracing, coverage, PDF, screenshots, emulation, file inputs
// and request interception. Anything the door refused by mistake would fail here.

describe.each(BROWSERS)('automation clients through the door, against %s', (chromiumPath) => {
  let t: SessionTestApp;
  let cdpUrl: string;

  beforeAll(async () => {
    t = await startSessionTestApp({ chromiumPath });
    ({ cdpUrl } = await t.openSession());
  });
  afterAll(async () => {
    await t.close();
  });

  it('Playwright: context, page, tracing, coverage, PDF, screenshot, emulation, files, routes', async () => {
    const browser = await chromium.connectOverCDP(cdpUrl);
    try {
      const context = await browser.newContext({ viewport: { width: 640, height: 480 } });
      const page = await context.newPage();
      await browser.startTracing(page, { screenshots: true });
      await page.coverage.startJSCoverage();
      await page.coverage.startCSSCoverage();
      await page.goto(`${t.fixture.url}/anim`);
      const js = await page.coverage.stopJSCoverage();
      await page.coverage.stopCSSCoverage();
      expect(js.some((entry) => entry.functions.length > 0)).toBe(true);
      const trace = JSON.parse((await browser.stopTracing()).toString()) as {
        traceEvents: unknown[];
      };
      expect(trace.traceEvents.length).toBeGreaterThan(0);

      expect((await page.pdf()).subarray(0, 5).toString()).toBe('%PDF-');
      const png = await page.screenshot();
      expect(png.readUInt32BE(16)).toBe(640);
      await page.emulateMedia({ colorScheme: 'dark' });
      expect(await page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches")).toBe(true);
      await page.setViewportSize({ width: 500, height: 400 });
      expect(await page.evaluate('innerWidth')).toBe(500);

      // Playwright reads the client's own files and sends their bytes, from memory or a path.
      await page.goto(`${t.fixture.url}/upload`);
      await page.setInputFiles('#file', {
        name: 'note.txt',
        mimeType: 'text/plain',
        buffer: Buffer.from('from the client'),
      });
      await expect.poll(() => page.textContent('#got')).toBe('note.txt:from the client');
      const local = join(tmpdir(), `havn-upload-${process.pid}.txt`);
      await writeFile(local, 'a file of the client');
      try {
        await page.setInputFiles('#file', local);
        await expect.poll(() => page.textContent('#got')).toMatch(/:a file of the client$/);
      } finally {
        await rm(local, { force: true });
      }

      await page.route('**/intercepted', (route) =>
        route.fulfill({ contentType: 'text/html', body: '<p id="x">from the route</p>' }),
      );
      await page.goto(`${t.fixture.url}/intercepted`);
      expect(await page.textContent('#x')).toBe('from the route');
      await context.close();
    } finally {
      await browser.close();
    }
  });

  it('Puppeteer: context, page, tracing, coverage, PDF, screenshot, emulation, interception', async () => {
    const browser = await puppeteer.connect({ browserWSEndpoint: cdpUrl, defaultViewport: null });
    try {
      const context = await browser.createBrowserContext();
      const page = await context.newPage();
      await page.setViewport({ width: 600, height: 400, deviceScaleFactor: 2 });
      await page.tracing.start({ screenshots: true });
      await page.coverage.startJSCoverage();
      await page.goto(`${t.fixture.url}/anim`);
      expect((await page.coverage.stopJSCoverage()).length).toBeGreaterThan(0);
      const trace = await page.tracing.stop();
      expect(trace && trace.length).toBeGreaterThan(0);
      expect(
        Buffer.from(await page.pdf())
          .subarray(0, 5)
          .toString(),
      ).toBe('%PDF-');
      const png = Buffer.from(await page.screenshot());
      expect(png.readUInt32BE(16)).toBe(1200);
      await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'dark' }]);
      expect(await page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches")).toBe(true);

      await page.setRequestInterception(true);
      page.on('request', (request) => {
        if (request.url().endsWith('/intercepted')) {
          void request.respond({ contentType: 'text/html', body: '<p id="x">intercepted</p>' });
        } else {
          void request.continue();
        }
      });
      await page.goto(`${t.fixture.url}/intercepted`);
      expect(await page.evaluate("document.querySelector('#x').textContent")).toBe('intercepted');

      await page.goto(`${t.fixture.url}/upload`);
      const input = await page.$('#file');
      await expect(input!.uploadFile('/etc/hostname')).rejects.toThrow(/session folder/);
      await context.close();
    } finally {
      await browser.disconnect();
    }
  });
});
