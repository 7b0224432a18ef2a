// --severity with its numeric levels (docs/cli.md#options). An unknown name is a usage error,
// not a silent "no filter".
import { UsageError } from '../errors.js';

// A Map, not an object literal: `LEVELS['constructor']` of a plain object is Object's own
// constructor, which once reached the query as `severityLevel >= function Object() {…}`.
const LEVELS: ReadonlyMap<string, number> = new Map([
  ['trace', 0],
  ['verbose', 0],
  ['info', 1],
  ['information', 1],
  ['warning', 2],
  ['error', 3],
  ['critical', 4],
]);

const NAMES = ['Verbose', 'Information', 'Warning', 'Error', 'Critical'] as const;

export function parseSeverity(value: string): number {
  const level = LEVELS.get(value.trim().toLowerCase());
  if (level === undefined) {
    throw new UsageError(
      `--severity must be one of Trace (or Verbose), Info (or Information), Warning, Error, Critical; got '${value}'.`,
    );
  }
  return level;
}

/** The display name of a numeric severityLevel, or the number itself when out of range. */
export function severityName(level: number | null): string {
  if (level === null) return '';
  return NAMES[level] ?? String(level);
}
