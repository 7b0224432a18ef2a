// --since (spec 3 §4.1): a number with a trailing d, h or m. 0-decisions §3 replaces the spec's
// silent fallback to one hour with a usage error naming the accepted forms.
import { UsageError } from '../errors.js';

export interface TimeWindow {
  /** The KQL timespan literal, e.g. `30m`, `1h`, `7d`. */
  readonly kql: string;
  /** The ISO 8601 duration sent as the request's `timespan`, e.g. `PT30M`, `P7D`. */
  readonly iso: string;
  /** For people: `last 1 hour`. */
  readonly text: string;
  readonly ms: number;
}

const UNITS = {
  d: { iso: (n: number) => `P${String(n)}D`, word: 'day', ms: 86_400_000 },
  h: { iso: (n: number) => `PT${String(n)}H`, word: 'hour', ms: 3_600_000 },
  m: { iso: (n: number) => `PT${String(n)}M`, word: 'minute', ms: 60_000 },
} as const;

export const DEFAULT_SINCE = '1h';

export function parseSince(value: string): TimeWindow {
  const match = /^(\d{1,6})([dhm])$/.exec(value.trim());
  const amount = match ? Number(match[1]) : 0;
  if (!match || amount <= 0) {
    throw new UsageError(
      `--since must be a positive whole number followed by d, h or m (for example 30m, 6h or 7d); got '${value}'.`,
    );
  }
  const unit = UNITS[match[2] as keyof typeof UNITS];
  return windowOf(amount, match[2] as keyof typeof UNITS, unit);
}

/** spec 3 §4.5: spans look at a fixed 24 hours. */
export const SPANS_WINDOW: TimeWindow = windowOf(24, 'h', UNITS.h);

function windowOf(
  amount: number,
  suffix: keyof typeof UNITS,
  unit: (typeof UNITS)[keyof typeof UNITS],
): TimeWindow {
  return {
    kql: `${String(amount)}${suffix}`,
    iso: unit.iso(amount),
    text: `last ${String(amount)} ${unit.word}${amount === 1 ? '' : 's'}`,
    ms: amount * unit.ms,
  };
}
