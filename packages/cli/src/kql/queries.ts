// The KQL of each otel command on either backend (docs/cli.md#the-query-sent; dialect.ts names
// the tables and columns). Values from the user enter only through kqlString; numbers are
// validated integers before they get here.
import { exceptionMessage, projection, type Dialect, type TableKind } from './dialect.js';
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

export interface TraceQueryOptions extends SpansQueryOptions {
  /** The fields each item carries (trace-json.ts). */
  readonly fields: readonly string[];
  readonly cap: number;
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

export function errorsQuery(d: Dialect, o: ErrorsQueryOptions, mode: ListMode = LIST): string {
  const c = (field: string) => d.column(field, 'exceptions');
  return listQuery(
    d,
    'exceptions',
    [
      appFilter(d, o.app),
      o.operationId === undefined
        ? undefined
        : `| where ${c('operation_Id')} == ${kqlString(o.operationId, '--operation-id')}`,
    ],
    o,
    projection(
      d,
      'exceptions',
      ['timestamp', 'cloud_RoleName', 'type', 'message', 'operation_Id'],
      {
        message: exceptionMessage(d, 'exceptions'),
      },
    ),
    mode,
  );
}

export function tracesQuery(d: Dialect, o: TracesQueryOptions, mode: ListMode = LIST): string {
  return listQuery(
    d,
    'requests',
    [
      appFilter(d, o.app),
      o.hasError ? `| where ${d.column('success', 'requests')} == false` : undefined,
    ],
    o,
    projection(d, 'requests', [
      'timestamp',
      'cloud_RoleName',
      'name',
      'resultCode',
      'duration',
      'success',
      'operation_Id',
    ]),
    mode,
  );
}

export function logsQuery(d: Dialect, o: LogsQueryOptions, mode: ListMode = LIST): string {
  const c = (field: string) => d.column(field, 'traces');
  return listQuery(
    d,
    'traces',
    [
      appFilter(d, o.app),
      // A minimum, so Warning also returns Error and Critical.
      o.minSeverity === undefined
        ? undefined
        : `| where ${c('severityLevel')} >= ${String(o.minSeverity)}`,
      o.traceId === undefined
        ? undefined
        : `| where ${c('operation_Id')} == ${kqlString(o.traceId, '--trace-id')}`,
    ],
    // --limit applies to logs too (docs/cli.md#behaviour-in-detail).
    o,
    projection(d, 'traces', [
      'timestamp',
      'cloud_RoleName',
      'severityLevel',
      'message',
      'operation_Id',
    ]),
    mode,
  );
}

export function spansQuery(d: Dialect, o: SpansQueryOptions): string {
  const c = (field: string) => d.column(field, 'dependencies');
  return lines(
    d.table('dependencies'),
    `| where ${o.window.where(c('timestamp'))}`,
    `| where ${c('operation_Id')} == ${kqlString(o.operationId, '--operation-id')}`,
    // Oldest first, no row cap.
    `| order by ${c('timestamp')} asc`,
    `| project ${projection(d, 'dependencies', [
      'timestamp',
      'cloud_RoleName',
      'name',
      'type',
      'target',
      'duration',
      'resultCode',
      'success',
      'id',
      'operation_ParentId',
      'operation_Id',
    ])}`,
  );
}

/** Every item of one operation in all four tables, oldest first (docs/cli.md#one-trace-havn-otel-trace). */
export function traceQuery(d: Dialect, o: TraceQueryOptions): string {
  const kinds: TableKind[] = ['requests', 'dependencies', 'exceptions', 'traces'];
  const time = d.column('timestamp');
  // A union has every table's columns; the workspace says which table a row is from in `Type`.
  const computed: Record<string, string> =
    d.backend === 'app'
      ? { message: exceptionMessage(d) }
      : {
          message: exceptionMessage(d),
          itemType:
            "case(Type == 'AppRequests', 'request', Type == 'AppDependencies', 'dependency', Type == 'AppExceptions', 'exception', 'trace')",
          type: `coalesce(${d.column('type', 'dependencies')}, ${d.column('type', 'exceptions')})`,
        };
  return lines(
    `union ${kinds.map((k) => d.table(k)).join(', ')}`,
    `| where ${o.window.where(time)}`,
    `| where ${d.column('operation_Id')} == ${kqlString(o.operationId, '<operation-id>')}`,
    `| order by ${time} asc`,
    `| take ${String(o.cap)}`,
    `| project ${projection(d, undefined, o.fields, computed)}`,
  );
}

function listQuery(
  d: Dialect,
  kind: TableKind,
  filters: readonly (string | undefined)[],
  o: ListOptions,
  project: string,
  mode: ListMode,
): string {
  const time = d.column('timestamp', kind);
  if (mode.kind === 'list') {
    return lines(
      d.table(kind),
      `| where ${o.window.where(time)}`,
      ...filters,
      `| order by ${time} desc`,
      `| take ${String(o.limit)}`,
      `| project ${project}`,
    );
  }
  // ingestion_time() is read before any other operator, while the rows are still the table's.
  const ingested = `| extend ${INGESTED} = ingestion_time()`;
  const projectFollow = `| project ${project}, ${projection(d, kind, ['itemId'])}, ${INGESTED}`;
  if (mode.kind === 'follow-start') {
    return lines(
      d.table(kind),
      ingested,
      `| where ${o.window.where(time)}`,
      ...filters,
      `| order by ${time} desc`,
      `| take ${String(o.limit)}`,
      projectFollow,
    );
  }
  return lines(
    d.table(kind),
    ingested,
    `| where ${INGESTED} > datetime(${mode.after})`,
    `| where ${time} >= datetime(${mode.since})`,
    ...filters,
    `| order by ${INGESTED} asc, ${time} asc`,
    projectFollow,
  );
}

function appFilter(d: Dialect, app: string | undefined): string | undefined {
  return app === undefined
    ? undefined
    : `| where ${d.column('cloud_RoleName')} == ${kqlString(app, 'APP')}`;
}

function lines(...parts: (string | undefined)[]): string {
  return parts.filter((p) => p !== undefined).join('\n');
}
