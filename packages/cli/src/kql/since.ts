// The time window of a query: --since (a number with a trailing d, h or m; an unparseable value is
// a usage error naming the accepted forms), or --from/--to (ISO 8601 or relative), as written
// down in docs/cli.md#time-windows. The window goes into both the KQL and the request's
// `timespan`, so the service can prune data early.
import { UsageError } from '../errors.js';

export interface TimeWindow {
  /** The KQL predicate on the time column: `timestamp > ago(1h)`, or a half-open absolute range. */
  where(time: string): string;
  /** The request's `timespan`: an ISO 8601 duration (PT1H) or interval (start/end). */
  readonly iso: string;
  /** For people: `last 1 hour`, or `window <from> to <to>`. */
  readonly text: string;
  readonly ms: number;
  /** Epoch ms of the end of an absolute window; undefined when the window ends now. */
  readonly end?: number;
}

const UNITS = {
  d: { iso: (n: number) => `P${String(n)}D`, word: 'day', ms: 86_400_000 },
  h: { iso: (n: number) => `PT${String(n)}H`, word: 'hour', ms: 3_600_000 },
  m: { iso: (n: number) => `PT${String(n)}M`, word: 'minute', ms: 60_000 },
} as const;
type Unit = keyof typeof UNITS;

export const DEFAULT_SINCE = '1h';

export function parseSince(value: string): TimeWindow {
  const { amount, unit } = duration(value, '--since');
  const u = UNITS[unit];
  return {
    where: (time) => `${time} > ago(${String(amount)}${unit})`,
    iso: u.iso(amount),
    text: `last ${String(amount)} ${u.word}${amount === 1 ? '' : 's'}`,
    ms: amount * u.ms,
  };
}

/** Fixed windows (spans' 24 hours, a trace's default day). */
export const SPANS_WINDOW: TimeWindow = parseSince('24h');

export interface WindowOptions {
  readonly since?: string | undefined;
  readonly from?: string | undefined;
  readonly to?: string | undefined;
}

/**
 * The window of --since/--from/--to at `now`: --since alone (default `fallback`) ends now; --from
 * runs to --to or now; --to alone or with --since ends there, as `az … --offset --end-time` does.
 */
export function parseWindow(o: WindowOptions, now: number, fallback = DEFAULT_SINCE): TimeWindow {
  if (o.since !== undefined && o.from !== undefined) {
    throw new UsageError('Give --since or --from, not both.');
  }
  if (o.from === undefined && o.to === undefined) return parseSince(o.since ?? fallback);
  const to = o.to === undefined ? now : parseInstant(o.to, '--to', now);
  const from =
    o.from === undefined
      ? to - parseSince(o.since ?? fallback).ms
      : parseInstant(o.from, '--from', now);
  if (from >= to) {
    throw new UsageError(
      `--from must be before --to; got ${new Date(from).toISOString()} to ${new Date(to).toISOString()}.`,
    );
  }
  const a = new Date(from).toISOString();
  const b = new Date(to).toISOString();
  return {
    where: (time) => `${time} >= datetime(${a}) and ${time} < datetime(${b})`,
    iso: `${a}/${b}`,
    text: `window ${a} to ${b}`,
    ms: to - from,
    end: to,
  };
}

/** Start and end of `window` (epoch ms) at `now`, for -v. */
export function windowBounds(window: TimeWindow, now: number): { from: string; to: string } {
  const end = window.end ?? now;
  return {
    from: new Date(end - window.ms).toISOString(),
    to: new Date(end).toISOString(),
  };
}

// 2026-11-21, 2026-11-21T10:00, 2026-11-21 10:00:00.123Z, 2026-11-21T10:00:00+01:00.
const ISO =
  /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2})(:\d{2})?(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/i;
const RELATIVE = /^(?:now-|-)?(\d{1,6})([dhm])$|^now$/i;

/** An instant: ISO 8601 (UTC when no zone is given), `now`, `now-2h` or `2h` (two hours ago). */
export function parseInstant(value: string, option: string, now: number): number {
  const text = value.trim();
  const relative = RELATIVE.exec(text);
  if (relative) {
    if (relative[1] === undefined) return now;
    return now - duration(`${relative[1]}${relative[2] ?? ''}`, option).amountMs;
  }
  const iso = ISO.exec(text);
  if (iso) {
    const [, date, hm, s, fraction, zone] = iso;
    const time = hm === undefined ? '00:00' : hm;
    const ms = fraction === undefined ? '' : fraction.slice(0, 4);
    const offset = zone === undefined || zone.toUpperCase() === 'Z' ? 'Z' : zone;
    const parsed = Date.parse(`${date ?? ''}T${time}${s ?? ':00'}${ms}${offset}`);
    // Date.parse rolls 2026-02-30 over to March; an instant must read back as written.
    if (!Number.isNaN(parsed) && sameDate(parsed, date ?? '', offset)) return parsed;
  }
  throw new UsageError(
    `${option} must be an ISO 8601 time (2026-11-21T10:00:00Z; UTC when no zone is given) or relative (now, now-2h, 30m); got '${value}'.`,
  );
}

function sameDate(epoch: number, date: string, offset: string): boolean {
  if (offset !== 'Z') return true;
  return new Date(epoch).toISOString().startsWith(date);
}

function duration(value: string, option: string): { amount: number; unit: Unit; amountMs: number } {
  const match = /^(\d{1,6})([dhm])$/.exec(value.trim());
  const amount = match ? Number(match[1]) : 0;
  if (!match || amount <= 0) {
    throw new UsageError(
      `${option} must be a positive whole number followed by d, h or m (for example 30m, 6h or 7d); got '${value}'.`,
    );
  }
  const unit = match[2] as Unit;
  return { amount, unit, amountMs: amount * UNITS[unit].ms };
}
