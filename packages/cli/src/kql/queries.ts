// The KQL of each otel command (docs/cli.md#the-query-sent). Values from the user enter only
// through kqlString; numbers are validated integers before they get here.
import { kqlString } from './string-literal.js';
import type { TimeWindow } from './since.js';

export interface ListOptions {
  readonly window: TimeWindow;
  readonly limit: number;
  /** Positional APP: filters on cloud_RoleName. */
  readonly app?: string | undefined;
}

export interface ErrorsQueryOptions extends ListOptions {
  readonly operationId?: string | undefined;
}

export interface TracesQueryOptions extends ListOptions {
  readonly hasError: boolean;
}

export interface LogsQueryOptions extends ListOptions {
  readonly minSeverity?: number | undefined;
  readonly traceId?: string | undefined;
}

export interface SpansQueryOptions {
  readonly window: TimeWindow;
  readonly operationId: string;
}

/**
 * How a list query is asked (docs/cli.md#follow): once (`list`); as the first query of --follow,
 * which also returns each row's itemId and ingestion time; or as a poll of --follow, every row
 * ingested after `after` whose timestamp is not before `since`, in ingestion order.
 */
export type ListMode =
  | { readonly kind: 'list' }
  | { readonly kind: 'follow-start' }
  | { readonly kind: 'follow-poll'; readonly after: string; readonly since: string };

export const LIST: ListMode = { kind: 'list' };

/** The ingestion time column a --follow query adds. */
export const INGESTED = '_ingested';

export function errorsQuery(o: ErrorsQueryOptions, mode: ListMode = LIST): string {
  return listQuery(
    'exceptions',
    [
      appFilter(o.app),
      o.operationId === undefined
        ? undefined
        : `| where operation_Id == ${kqlString(o.operationId, '--operation-id')}`,
    ],
    o,
    'timestamp, cloud_RoleName, type, message = coalesce(message, outerMessage, innermostMessage), operation_Id',
    mode,
  );
}

export function tracesQuery(o: TracesQueryOptions, mode: ListMode = LIST): string {
  return listQuery(
    'requests',
    [appFilter(o.app), o.hasError ? '| where success == false' : undefined],
    o,
    'timestamp, cloud_RoleName, name, resultCode, duration, success, operation_Id',
    mode,
  );
}

export function logsQuery(o: LogsQueryOptions, mode: ListMode = LIST): string {
  return listQuery(
    'traces',
    [
      appFilter(o.app),
      // A minimum, so Warning also returns Error and Critical.
      o.minSeverity === undefined ? undefined : `| where severityLevel >= ${String(o.minSeverity)}`,
      o.traceId === undefined
        ? undefined
        : `| where operation_Id == ${kqlString(o.traceId, '--trace-id')}`,
    ],
    // --limit applies to logs too (docs/cli.md#behaviour-in-detail).
    o,
    'timestamp, cloud_RoleName, severityLevel, message, operation_Id',
    mode,
  );
}

export function spansQuery(o: SpansQueryOptions): string {
  return lines(
    'dependencies',
    `| where ${o.window.where}`,
    `| where operation_Id == ${kqlString(o.operationId, '--operation-id')}`,
    // Oldest first, no row cap.
    '| order by timestamp asc',
    '| project timestamp, cloud_RoleName, name, type, target, duration, resultCode, success, id, operation_ParentId, operation_Id',
  );
}

function listQuery(
  table: string,
  filters: readonly (string | undefined)[],
  o: ListOptions,
  project: string,
  mode: ListMode,
): string {
  if (mode.kind === 'list') {
    return lines(
      table,
      `| where ${o.window.where}`,
      ...filters,
      '| order by timestamp desc',
      `| take ${String(o.limit)}`,
      `| project ${project}`,
    );
  }
  // ingestion_time() is read before any other operator, while the rows are still the table's.
  const ingested = `| extend ${INGESTED} = ingestion_time()`;
  const projectFollow = `| project ${project}, itemId, ${INGESTED}`;
  if (mode.kind === 'follow-start') {
    return lines(
      table,
      ingested,
      `| where ${o.window.where}`,
      ...filters,
      '| order by timestamp desc',
      `| take ${String(o.limit)}`,
      projectFollow,
    );
  }
  return lines(
    table,
    ingested,
    `| where ${INGESTED} > datetime(${mode.after})`,
    `| where timestamp >= datetime(${mode.since})`,
    ...filters,
    `| order by ${INGESTED} asc, timestamp asc`,
    projectFollow,
  );
}

function appFilter(app: string | undefined): string | undefined {
  return app === undefined ? undefined : `| where cloud_RoleName == ${kqlString(app, 'APP')}`;
}

function lines(...parts: (string | undefined)[]): string {
  return parts.filter((p) => p !== undefined).join('\n');
}
