import { setTimeout as delay } from 'node:timers/promises';
import type { Page } from 'playwright-core';

// Chromium answers "Unable to capture screenshot" when its copy of the compositor's surface comes
// back empty: the page has no painted frame at that instant (a new context whose emulated
// viewport was just applied, a busy machine). It is not the page's fault and the next frame has
// one. Seen rarely, under load, in fresh-context captures.
const EMPTY_FRAME = /Unable to capture screenshot/;
const PAINT_WAIT_MS = 500;

/**
 * Takes a screenshot, and once more after the page has painted two frames when Chromium's first
 * copy came back empty. Any other failure, and a second empty copy, are the caller's to report.
 */
export async function screenshotOnPaintedFrame(
  page: Page,
  shoot: () => Promise<Buffer>,
): Promise<Buffer> {
  try {
    return await shoot();
  } catch (err) {
    if (!(err instanceof Error) || !EMPTY_FRAME.test(err.message) || page.isClosed()) throw err;
    // Bounded: the page's own script may have replaced requestAnimationFrame.
    const painted = page
      .evaluate('new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))')
      .catch(() => undefined);
    await Promise.race([painted, delay(PAINT_WAIT_MS)]);
    return shoot();
  }
}
