// Bounds on the work one request can ask the browser for (docs/configuration.md#bounds): a
// viewport, a device scale factor and a capture each cost memory in proportion to their pixels,
// and a paper size past what PDF can hold only fails inside Chromium. Renders, sessions and the
// CDP door judge by the same numbers, so no path reaches further than another.

export interface CaptureLimits {
  /** Largest viewport width or height in CSS pixels (MAX_VIEWPORT). */
  readonly maxViewport: number;
  /** Largest deviceScaleFactor (MAX_DEVICE_SCALE_FACTOR). */
  readonly maxDeviceScaleFactor: number;
  /** Largest capture in device pixels: width × height × deviceScaleFactor² (MAX_CAPTURE_PIXELS). */
  readonly maxCapturePixels: number;
}

export const DEFAULT_CAPTURE_LIMITS: CaptureLimits = Object.freeze({
  maxViewport: 8192,
  maxDeviceScaleFactor: 4,
  // An 8K frame (7680 × 4320): about 130 MB of raw bitmap, which Chromium holds while encoding.
  maxCapturePixels: 33_177_600,
});

/** PDF's own largest page side (14,400 units of 1/72 in); Chromium fails past it. */
export const MAX_PAPER_INCHES = 200;

const PER_INCH: Readonly<Record<string, number>> = { in: 1, cm: 2.54, mm: 25.4, px: 96 };
const LENGTH = /^(\d+(?:\.\d+)?)(px|in|cm|mm)?$/;

/** A CSS length ("10mm", "0.5in", "20px", bare numbers are px) in inches, or undefined. */
export function inches(length: string): number | undefined {
  const m = LENGTH.exec(length);
  if (!m) return undefined;
  return Number(m[1]) / (PER_INCH[m[2] ?? 'px'] ?? 96);
}

/** Paper sizes in inches (width × height, portrait), as Chromium prints them. */
export const PAPER_FORMATS: ReadonlyMap<string, readonly [number, number]> = new Map([
  ['Letter', [8.5, 11]],
  ['Legal', [8.5, 14]],
  ['Tabloid', [11, 17]],
  ['Ledger', [17, 11]],
  ['A0', [33.1, 46.8]],
  ['A1', [23.4, 33.1]],
  ['A2', [16.54, 23.4]],
  ['A3', [11.7, 16.54]],
  ['A4', [8.27, 11.7]],
  ['A5', [5.83, 8.27]],
  ['A6', [4.13, 5.83]],
]);

/** Device pixels of a `width` × `height` CSS-pixel capture at `scale`. */
export function devicePixels(width: number, height: number, scale: number): number {
  return Math.ceil(width * scale) * Math.ceil(height * scale);
}

/** Why a capture of that size is refused, or undefined when it is within MAX_CAPTURE_PIXELS. */
export function capturePixelsProblem(
  width: number,
  height: number,
  scale: number,
  limits: CaptureLimits,
): string | undefined {
  const pixels = devicePixels(width, height, scale);
  if (pixels <= limits.maxCapturePixels) return undefined;
  return (
    `${Math.round(width)}×${Math.round(height)} at scale ${scale} is ${pixels.toLocaleString('en')} pixels, ` +
    `over MAX_CAPTURE_PIXELS (${limits.maxCapturePixels.toLocaleString('en')})`
  );
}
