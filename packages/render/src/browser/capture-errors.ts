// What can go wrong inside a capture, in terms the service maps to statuses
// (docs/render.md#statuses). The browser layer raises these; it knows nothing of HTTP.

/** Navigation failed (DNS, connection, TLS, ...): 502 `navigation failed: <reason>`. */
export class NavigationError extends Error {
  constructor(readonly reason: string) {
    super(`navigation failed: ${reason}`);
    this.name = 'NavigationError';
  }
}

/** A request field the browser refused (a bad selector, an invalid cookie): 400 naming it. */
export class CaptureInputError extends Error {
  constructor(
    readonly field: string,
    readonly problem: string,
  ) {
    super(`${field} ${problem}`);
    this.name = 'CaptureInputError';
  }
}

/** A browser step ran past the render's deadline. */
export class CaptureTimeoutError extends Error {
  constructor() {
    super('capture timed out');
    this.name = 'CaptureTimeoutError';
  }
}

/** The page's renderer process crashed (not the whole browser): 502 `page crashed: …`. */
export class PageCrashedError extends Error {
  constructor() {
    super(
      'page crashed: its renderer process died (out of memory past PAGE_MAX_HEAP_MB, or a crash in Chromium); the browser is unharmed',
    );
    this.name = 'PageCrashedError';
  }
}

/** Chromium could not produce the capture (a page too large to paint, a PDF it cannot lay out). */
export class CaptureFailedError extends Error {
  constructor(readonly reason: string) {
    super(`capture failed: ${reason}`);
    this.name = 'CaptureFailedError';
  }
}
