import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import { pngSize } from '../test-support/png.js';
import { screenshotOnPaintedFrame } from './screenshot-retry.js';

// Chromium's rare empty-surface answer is retried once on a painted frame; nothing else is.

let browser: Browser;
let page: Page;

beforeAll(async () => {
  const { chromiumPath } = loadConfig({ PATH: process.env.PATH, ALLOW_ANONYMOUS: '1' });
  browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'] });
  page = await browser.newPage({ viewport: { width: 120, height: 80 } });
  await page.setContent('<p>x</p>');
});

afterAll(async () => {
  await browser.close();
});

/** Chromium's answer when its copy of the surface comes back empty, then real screenshots. */
function emptyFrameTimes(times: number): { shoot: () => Promise<Buffer>; calls: () => number } {
  let calls = 0;
  return {
    calls: () => calls,
    shoot: async () => {
      calls += 1;
      if (calls <= times)
        throw new Error(
          'page.screenshot: Protocol error (Page.captureScreenshot): Unable to capture screenshot',
        );
      return page.screenshot({ type: 'png' });
    },
  };
}

describe('screenshotOnPaintedFrame', () => {
  it('takes the screenshot again once the page has painted after an empty copy', async () => {
    const { shoot, calls } = emptyFrameTimes(1);
    const png = await screenshotOnPaintedFrame(page, shoot);
    expect(pngSize(png)).toEqual({ width: 120, height: 80 });
    expect(calls()).toBe(2);
  });

  it('reports a second empty copy and never retries other failures', async () => {
    const twice = emptyFrameTimes(2);
    await expect(screenshotOnPaintedFrame(page, twice.shoot)).rejects.toThrow(/Unable to capture/);
    expect(twice.calls()).toBe(2);
    let calls = 0;
    const other = (): Promise<Buffer> => {
      calls += 1;
      return Promise.reject(new Error('Cannot take screenshot with 0 width.'));
    };
    await expect(screenshotOnPaintedFrame(page, other)).rejects.toThrow(/0 width/);
    expect(calls).toBe(1);
  });

  it('does not wait on a page whose script replaced requestAnimationFrame', async () => {
    await page.evaluate('window.requestAnimationFrame = () => 0');
    const started = Date.now();
    const png = await screenshotOnPaintedFrame(page, emptyFrameTimes(1).shoot);
    expect(pngSize(png).width).toBe(120);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
