// The options errors, traces and logs share and their parsing (docs/cli.md#options). Parsing
// happens in the action, after the configuration check, which comes before anything else.
import { UsageError } from '../../errors.js';
import { LIST, type ListMode } from '../../kql/queries.js';
import { DEFAULT_SINCE, parseWindow, type TimeWindow } from '../../kql/since.js';
import { parseFormat, type OutputFormat } from '../../output/format.js';
import type { RowView } from '../../output/view.js';
import { stringOption, type OptionSpec, type OptionValues } from './command-spec.js';
import type { OtelPlan } from './run-otel.js';
import { TARGET_OPTIONS } from './target.js';

export interface ListSettings {
  readonly app: string | undefined;
  readonly window: TimeWindow;
  readonly limit: number;
  readonly format: OutputFormat;
  readonly verbose: boolean;
  /** --follow's poll interval in ms; undefined without --follow. */
  readonly followMs: number | undefined;
}

export const DEFAULT_LIMIT = 20;
/** The query API returns at most 500,000 rows; a larger take could never be honoured. */
export const MAX_LIMIT = 500_000;

export const APP_ARGUMENT = {
  name: '[APP]',
  description: 'only rows whose cloud_RoleName (AppRoleName) is APP',
};

export const FORMAT_OPTION: OptionSpec = {
  flags: '--format <FORMAT>',
  description: 'Table, Json, Jsonl, Csv or Tsv (case-insensitive)',
  default: 'Table',
};

/** --since, --from, --to. --since has no commander default, so that --from beside it shows. */
export function windowOptions(defaultSince: string): readonly OptionSpec[] {
  return [
    {
      flags: '--since <DURATION>',
      description: `how far back: a number followed by d, h or m (default: ${defaultSince})`,
    },
    {
      flags: '--from <TIME>',
      description: 'start: ISO 8601 (UTC unless a zone is given) or relative (now-2h, 2h)',
    },
    { flags: '--to <TIME>', description: 'end, as --from (default: now)' },
  ];
}

export const LIST_OPTIONS: readonly OptionSpec[] = [
  ...windowOptions(DEFAULT_SINCE),
  {
    flags: '--limit <COUNT>',
    description: 'maximum number of rows',
    default: String(DEFAULT_LIMIT),
  },
  FORMAT_OPTION,
  {
    flags: '-v, --verbose',
    description: 'print the backend, its ID, the time window and the query to stderr',
  },
  { flags: '-f, --follow', description: 'keep printing rows as they arrive, until Ctrl-C' },
  {
    flags: '--interval <DURATION>',
    description: 'with --follow: time between polls, e.g. 10s or 1m (default: 5s)',
  },
  ...TARGET_OPTIONS,
];

export function parseListSettings(
  app: string | undefined,
  options: OptionValues,
  now: number,
): ListSettings {
  const format = parseFormat(stringOption(options, 'format') ?? 'Table');
  const interval = stringOption(options, 'interval');
  const follow = options.follow === true;
  if (interval !== undefined && !follow) {
    throw new UsageError('--interval applies only with --follow.');
  }
  if (follow && stringOption(options, 'to') !== undefined) {
    throw new UsageError('--follow runs until Ctrl-C, so it takes no --to.');
  }
  if (follow && format === 'json') {
    throw new UsageError(
      '--follow writes a stream, which one JSON array cannot hold: use --format Jsonl (one object per line).',
    );
  }
  return {
    app: app === undefined ? undefined : requiredText(app, 'APP'),
    window: windowOf(options, now, DEFAULT_SINCE),
    limit: parseLimit(stringOption(options, 'limit') ?? String(DEFAULT_LIMIT)),
    format,
    verbose: options.verbose === true,
    followMs: follow ? parseInterval(interval ?? '5s') : undefined,
  };
}

/** The plan of a list command: its query once, or, with --follow, its first and poll queries. */
export function listPlan(
  s: ListSettings,
  view: RowView,
  queryFor: (mode: ListMode) => string,
): OtelPlan {
  if (s.followMs === undefined) return { ...s, view, query: queryFor(LIST) };
  return {
    ...s,
    view,
    query: queryFor({ kind: 'follow-start' }),
    follow: { queryFor, intervalMs: s.followMs },
  };
}

/** --interval: seconds (`10`, `10s`, `0.5s`) or minutes (`1m`), from half a second to an hour. */
export function parseInterval(value: string): number {
  const match = /^(\d{1,4}(?:\.\d{1,3})?)(s|m)?$/.exec(value.trim());
  const ms = match ? Number(match[1]) * (match[2] === 'm' ? 60_000 : 1000) : NaN;
  if (!(ms >= 500 && ms <= 3_600_000)) {
    throw new UsageError(
      `--interval must be a number of seconds or minutes from 0.5s to 60m (for example 5s, 0.5s or 1m); got '${value}'.`,
    );
  }
  return ms;
}

export function windowOf(options: OptionValues, now: number, defaultSince: string): TimeWindow {
  return parseWindow(
    {
      since: stringOption(options, 'since'),
      from: stringOption(options, 'from'),
      to: stringOption(options, 'to'),
    },
    now,
    defaultSince,
  );
}

/** An optional filter value: undefined when absent, refused when blank. */
export function optionalText(
  options: OptionValues,
  key: string,
  option: string,
): string | undefined {
  const value = stringOption(options, key);
  return value === undefined ? undefined : requiredText(value, option);
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
