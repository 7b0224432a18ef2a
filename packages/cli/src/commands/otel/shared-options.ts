// The options errors, traces and logs share (spec 3 §4.1) and their parsing. Parsing happens in
// the action, after the configuration check, because spec 3 §7 checks the configuration before
// anything else.
import type { Command } from 'commander';
import { UsageError } from '../../errors.js';
import { DEFAULT_SINCE, parseSince, type TimeWindow } from '../../kql/since.js';
import { parseFormat, type OutputFormat } from '../../output/format.js';

export interface RawListOptions {
  readonly since: string;
  readonly limit: string;
  readonly format: string;
  readonly verbose?: boolean;
}

export interface ListSettings {
  readonly app: string | undefined;
  readonly window: TimeWindow;
  readonly limit: number;
  readonly format: OutputFormat;
  readonly verbose: boolean;
}

export const DEFAULT_LIMIT = 20;
/** The query API returns at most 500,000 rows; a larger take could never be honoured. */
export const MAX_LIMIT = 500_000;

export function addListOptions(command: Command): Command {
  return command
    .argument('[APP]', 'only rows whose cloud_RoleName is APP')
    .option('--since <DURATION>', 'how far back: a number followed by d, h or m', DEFAULT_SINCE)
    .option('--limit <COUNT>', 'maximum number of rows', String(DEFAULT_LIMIT))
    .option('--format <FORMAT>', 'Table, Json, Jsonl or Csv (case-insensitive)', 'Table')
    .option('-v, --verbose', 'print the app id, the time window and the query to stderr');
}

export function parseListSettings(app: string | undefined, raw: RawListOptions): ListSettings {
  return {
    app: app === undefined ? undefined : requiredText(app, 'APP'),
    window: parseSince(raw.since),
    limit: parseLimit(raw.limit),
    format: parseFormat(raw.format),
    verbose: raw.verbose === true,
  };
}

export function parseLimit(value: string): number {
  const limit = /^\d{1,7}$/.test(value.trim()) ? Number(value.trim()) : NaN;
  if (!(limit >= 1 && limit <= MAX_LIMIT)) {
    throw new UsageError(
      `--limit must be a whole number from 1 to ${String(MAX_LIMIT)}; got '${value}'.`,
    );
  }
  return limit;
}

/** A filter value: surrounding blanks dropped, an empty value refused. */
export function requiredText(value: string, option: string): string {
  const trimmed = value.trim();
  if (trimmed === '') throw new UsageError(`${option} must not be empty.`);
  return trimmed;
}
