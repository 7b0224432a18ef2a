import type { BrowserContext, Page } from 'playwright-core';

// One page's CDP screencast on a CDP session the service owns, so a client that stops its own
// screencast does not stop the recording (docs/sessions.md#recording). Chromium sends a frame only
// when the page changes and waits for each ack before sending the next, so every frame is
// acknowledged at once, whatever the recorder does with it.

export interface ScreencastOptions {
  /** JPEG quality 1..100. */
  quality: number;
}

export interface ScreencastFrame {
  /** JPEG bytes. */
  data: Buffer;
  /** When Chromium captured the frame, in seconds since the epoch (CDP `metadata.timestamp`). */
  timestamp: number;
}

export async function startPageScreencast(
  context: BrowserContext,
  page: Page,
  options: ScreencastOptions,
  onFrame: (frame: ScreencastFrame) => void,
): Promise<{ stop(): Promise<void> }> {
  const cdp = await context.newCDPSession(page);
  cdp.on('Page.screencastFrame', (event) => {
    void cdp.send('Page.screencastFrameAck', { sessionId: event.sessionId }).catch(() => undefined);
    onFrame({
      data: Buffer.from(event.data, 'base64'),
      timestamp: event.metadata.timestamp ?? Date.now() / 1000,
    });
  });
  await cdp.send('Page.startScreencast', { format: 'jpeg', quality: options.quality });
  return {
    stop: async () => {
      await cdp.send('Page.stopScreencast').catch(() => undefined);
      await cdp.detach().catch(() => undefined);
    },
  };
}
