// The KQL of each otel command (spec 3 §1 tables, §4 options). Values from the user enter only
// through kqlString; numbers are validated integers before they get here.
import { kqlString } from './string-literal.js';
import type { TimeWindow } from './since.js';

export interface ListOptions {
  readonly window: TimeWindow;
  readonly limit: number;
  /** Positional APP: filters on cloud_RoleName (spec 3 §4.1). */
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

export function errorsQuery(o: ErrorsQueryOptions): string {
  return lines(
    'exceptions',
    `| where ${o.window.where}`,
    appFilter(o.app),
    o.operationId === undefined
      ? undefined
      : `| where operation_Id == ${kqlString(o.operationId, '--operation-id')}`,
    '| order by timestamp desc',
    `| take ${String(o.limit)}`,
    '| project timestamp, cloud_RoleName, type, message = coalesce(message, outerMessage, innermostMessage), operation_Id',
  );
}

export function tracesQuery(o: TracesQueryOptions): string {
  return lines(
    'requests',
    `| where ${o.window.where}`,
    appFilter(o.app),
    o.hasError ? '| where success == false' : undefined,
    '| order by timestamp desc',
    `| take ${String(o.limit)}`,
    '| project timestamp, cloud_RoleName, name, resultCode, duration, success, operation_Id',
  );
}

export function logsQuery(o: LogsQueryOptions): string {
  return lines(
    'traces',
    `| where ${o.window.where}`,
    appFilter(o.app),
    // spec 3 §4.4: a minimum, so Warning also returns Error and Critical.
    o.minSeverity === undefined ? undefined : `| where severityLevel >= ${String(o.minSeverity)}`,
    o.traceId === undefined
      ? undefined
      : `| where operation_Id == ${kqlString(o.traceId, '--trace-id')}`,
    '| order by timestamp desc',
    // 0-decisions §3: --limit applies to logs too.
    `| take ${String(o.limit)}`,
    '| project timestamp, cloud_RoleName, severityLevel, message, operation_Id',
  );
}

export function spansQuery(o: SpansQueryOptions): string {
  return lines(
    'dependencies',
    `| where ${o.window.where}`,
    `| where operation_Id == ${kqlString(o.operationId, '--operation-id')}`,
    // spec 3 §4.5: oldest first, no row cap.
    '| order by timestamp asc',
    '| project timestamp, cloud_RoleName, name, type, target, duration, resultCode, success, id, operation_ParentId, operation_Id',
  );
}

function appFilter(app: string | undefined): string | undefined {
  return app === undefined ? undefined : `| where cloud_RoleName == ${kqlString(app, 'APP')}`;
}

function lines(...parts: (string | undefined)[]): string {
  return parts.filter((p) => p !== undefined).join('\n');
}
