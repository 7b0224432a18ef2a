import { isRecord } from '@havn/shared';
import { renderErrors } from './errors.js';
import {
  capturePixelsProblem,
  DEFAULT_CAPTURE_LIMITS,
  inches,
  MAX_PAPER_INCHES,
  PAPER_FORMATS,
  type CaptureLimits,
} from './capture-limits.js';

// Device profiles (docs/render.md#get-v1profiles): ten built-ins, each with every field, in the
// documented order. An inline profile inherits from `desktop` or from the built-in it
// names in `name`, and is validated field by field (a bad field answers 400 naming it).

export type ColorScheme = 'light' | 'dark' | 'no-preference';

export interface PaperMargin {
  top: string;
  right: string;
  bottom: string;
  left: string;
}

export interface Paper {
  format?: string;
  width?: string;
  height?: string;
  landscape?: boolean;
  margin: PaperMargin;
}

export interface Profile {
  name: string;
  viewport: { width: number; height: number };
  deviceScaleFactor: number;
  isMobile: boolean;
  hasTouch: boolean;
  colorScheme: ColorScheme;
  locale: string;
  timezone: string;
  paper?: Paper;
}

/** The paper of a PDF whose profile has none: A4 with 10 mm margins. */
export const DEFAULT_PAPER: Paper = Object.freeze({
  format: 'A4',
  margin: Object.freeze({ top: '10mm', right: '10mm', bottom: '10mm', left: '10mm' }),
});

const base = { locale: 'da-DK', timezone: 'Europe/Copenhagen' } as const;
const desk = { isMobile: false, hasTouch: false, ...base } as const;
const touch = { isMobile: true, hasTouch: true, ...base } as const;

/** The built-in profiles, in the order GET /v1/profiles lists them. */
export const BUILT_IN_PROFILES: readonly Profile[] = Object.freeze([
  {
    name: 'desktop',
    viewport: { width: 1280, height: 800 },
    deviceScaleFactor: 1,
    colorScheme: 'light',
    ...desk,
  },
  {
    name: 'desktop-dark',
    viewport: { width: 1280, height: 800 },
    deviceScaleFactor: 1,
    colorScheme: 'dark',
    ...desk,
  },
  {
    name: 'desktop-2x',
    viewport: { width: 1280, height: 800 },
    deviceScaleFactor: 2,
    colorScheme: 'light',
    ...desk,
  },
  {
    name: 'laptop',
    viewport: { width: 1440, height: 900 },
    deviceScaleFactor: 1,
    colorScheme: 'light',
    ...desk,
  },
  {
    name: 'wide',
    viewport: { width: 1920, height: 1080 },
    deviceScaleFactor: 1,
    colorScheme: 'light',
    ...desk,
  },
  {
    name: 'tablet',
    viewport: { width: 820, height: 1180 },
    deviceScaleFactor: 2,
    colorScheme: 'light',
    ...touch,
  },
  {
    name: 'mobile',
    viewport: { width: 390, height: 844 },
    deviceScaleFactor: 3,
    colorScheme: 'light',
    ...touch,
  },
  {
    name: 'mobile-dark',
    viewport: { width: 390, height: 844 },
    deviceScaleFactor: 3,
    colorScheme: 'dark',
    ...touch,
  },
  {
    name: 'mobile-small',
    viewport: { width: 360, height: 640 },
    deviceScaleFactor: 2,
    colorScheme: 'light',
    ...touch,
  },
  {
    name: 'a4',
    // A4 at CSS 96 dpi, so that the screen layout and the printed page agree.
    viewport: { width: 794, height: 1123 },
    deviceScaleFactor: 1,
    colorScheme: 'light',
    ...desk,
    paper: { format: 'A4', margin: { top: '10mm', right: '10mm', bottom: '10mm', left: '10mm' } },
  },
]);

const byName = new Map(BUILT_IN_PROFILES.map((p) => [p.name, p]));

function bad(field: string, rule: string): never {
  throw renderErrors.error('PROFILE_INVALID', { field, rule });
}

function int(v: unknown, field: string, min: number, max: number, limit: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    bad(field, `must be a whole number from ${min} to ${max} (${limit})`);
  }
  return v;
}

function bool(v: unknown, field: string): boolean {
  if (typeof v !== 'boolean') bad(field, 'must be a boolean');
  return v;
}

function length(v: unknown, field: string): string {
  const text = typeof v === 'number' && v >= 0 ? `${v}px` : v;
  if (typeof text !== 'string' || inches(text) === undefined) {
    bad(field, 'must be a length such as "10mm", "0.5in" or "20px"');
  }
  if ((inches(text) ?? 0) > MAX_PAPER_INCHES) {
    bad(field, `must be at most ${MAX_PAPER_INCHES}in, the largest page PDF can hold`);
  }
  return text;
}

function locale(v: unknown, field: string): string {
  if (typeof v !== 'string' || v === '')
    bad(field, 'must be a BCP 47 language tag such as "da-DK"');
  try {
    return Intl.getCanonicalLocales(v)[0] ?? bad(field, 'must be a BCP 47 language tag');
  } catch {
    return bad(field, 'must be a BCP 47 language tag such as "da-DK"');
  }
}

function timezone(v: unknown, field: string): string {
  if (typeof v !== 'string' || v === '')
    bad(field, 'must be an IANA time zone such as "Europe/Copenhagen"');
  try {
    new Intl.DateTimeFormat('en', { timeZone: v });
    return v;
  } catch {
    return bad(field, 'must be an IANA time zone such as "Europe/Copenhagen"');
  }
}

function paper(v: unknown, field: string, inherited: Paper | undefined): Paper {
  if (!isRecord(v)) bad(field, 'must be an object');
  const out: Paper = {
    ...inherited,
    margin: { ...(inherited?.margin ?? { top: '0', right: '0', bottom: '0', left: '0' }) },
  };
  if (v.format !== undefined) {
    const formats = [...PAPER_FORMATS.keys()];
    const f = formats.find(
      (x) => typeof v.format === 'string' && x.toLowerCase() === v.format.toLowerCase(),
    );
    if (!f) bad(`${field}.format`, `must be one of ${formats.join(', ')}`);
    out.format = f;
    delete out.width;
    delete out.height;
  }
  if (v.width !== undefined || v.height !== undefined) {
    out.width = length(v.width, `${field}.width`);
    out.height = length(v.height, `${field}.height`);
    delete out.format;
  }
  if (v.landscape !== undefined) out.landscape = bool(v.landscape, `${field}.landscape`);
  if (v.margin !== undefined) {
    if (!isRecord(v.margin)) bad(`${field}.margin`, 'must be an object');
    for (const side of ['top', 'right', 'bottom', 'left'] as const) {
      const m = v.margin[side];
      if (m !== undefined) out.margin[side] = length(m, `${field}.margin.${side}`);
    }
  }
  const [width, height] = paperInches(out);
  if (width === 0 || height === 0) bad(field, 'width and height must be more than 0');
  const across = (inches(out.margin.left) ?? 0) + (inches(out.margin.right) ?? 0);
  const down = (inches(out.margin.top) ?? 0) + (inches(out.margin.bottom) ?? 0);
  if (across >= width) bad(`${field}.margin`, 'left and right must leave room on the page');
  if (down >= height) bad(`${field}.margin`, 'top and bottom must leave room on the page');
  return out;
}

/**
 * The paper a PDF prints on: the profile's (or DEFAULT_PAPER) with a request's `landscape` and
 * `margin` laid over it, held to the same rules as an inline profile's paper (400 naming `field`).
 */
export function paperWith(
  overrides: { landscape?: boolean | undefined; margin?: Record<string, unknown> | undefined },
  field: string,
  inherited: Paper | undefined,
): Paper {
  const input: Record<string, unknown> = {};
  if (overrides.landscape !== undefined) input.landscape = overrides.landscape;
  if (overrides.margin !== undefined) input.margin = overrides.margin;
  return paper(input, field, inherited ?? DEFAULT_PAPER);
}

/** The page's printed width and height in inches (A4 when nothing says otherwise). */
function paperInches(p: Paper): [number, number] {
  const [w, h] =
    p.width !== undefined && p.height !== undefined
      ? [inches(p.width) ?? 0, inches(p.height) ?? 0]
      : (PAPER_FORMATS.get(p.format ?? 'A4') ?? [8.27, 11.7]);
  return p.landscape ? [h, w] : [w, h];
}

/** A built-in profile by name, or undefined. */
export function builtInProfile(name: string): Profile | undefined {
  return byName.get(name);
}

/**
 * Resolves a request's `profile` (a name, an inline object, or absent for `desktop`), answering
 * 400 naming the field for an unknown name or a bad inline field.
 */
export function resolveProfile(
  input: unknown,
  field = 'profile',
  limits: CaptureLimits = DEFAULT_CAPTURE_LIMITS,
): Profile {
  if (input === undefined) return builtInProfile('desktop') ?? bad(field, 'is missing');
  if (typeof input === 'string') {
    return (
      builtInProfile(input) ??
      bad(field, `"${input}" is not a built-in profile (have: ${[...byName.keys()].join(', ')})`)
    );
  }
  if (!isRecord(input)) bad(field, 'must be a profile name or an object');
  let parent = builtInProfile('desktop');
  let name = 'inline';
  if (input.name !== undefined) {
    if (typeof input.name !== 'string' || !byName.has(input.name)) {
      bad(`${field}.name`, `must name a built-in profile (have: ${[...byName.keys()].join(', ')})`);
    }
    parent = builtInProfile(input.name);
    name = input.name;
  }
  if (!parent) return bad(field, 'has no base profile');
  const p: Profile = { ...parent, viewport: { ...parent.viewport }, name };
  if (input.viewport !== undefined) {
    if (!isRecord(input.viewport)) bad(`${field}.viewport`, 'must be an object { width, height }');
    for (const side of ['width', 'height'] as const) {
      if (input.viewport[side] === undefined) continue;
      p.viewport[side] = int(
        input.viewport[side],
        `${field}.viewport.${side}`,
        1,
        limits.maxViewport,
        'MAX_VIEWPORT',
      );
    }
  }
  if (input.deviceScaleFactor !== undefined) {
    const s = input.deviceScaleFactor;
    const max = limits.maxDeviceScaleFactor;
    if (typeof s !== 'number' || !(s >= 0.25 && s <= max))
      bad(
        `${field}.deviceScaleFactor`,
        `must be a number from 0.25 to ${max} (MAX_DEVICE_SCALE_FACTOR)`,
      );
    p.deviceScaleFactor = s;
  }
  const pixels = capturePixelsProblem(
    p.viewport.width,
    p.viewport.height,
    p.deviceScaleFactor,
    limits,
  );
  if (pixels) bad(field, `viewport ${pixels}`);
  if (input.isMobile !== undefined) p.isMobile = bool(input.isMobile, `${field}.isMobile`);
  if (input.hasTouch !== undefined) p.hasTouch = bool(input.hasTouch, `${field}.hasTouch`);
  if (input.colorScheme !== undefined) {
    const c = input.colorScheme;
    if (c !== 'light' && c !== 'dark' && c !== 'no-preference')
      bad(`${field}.colorScheme`, 'must be "light", "dark" or "no-preference"');
    p.colorScheme = c;
  }
  if (input.locale !== undefined) p.locale = locale(input.locale, `${field}.locale`);
  if (input.timezone !== undefined) p.timezone = timezone(input.timezone, `${field}.timezone`);
  if (input.paper !== undefined) p.paper = paper(input.paper, `${field}.paper`, p.paper);
  return p;
}
