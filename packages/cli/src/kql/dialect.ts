// The two telemetry backends name the same data differently (docs/cli.md#the-query-sent): the
// Application Insights app API has the classic tables (`exceptions`, `requests`, `traces`,
// `dependencies`) and columns (`timestamp`, `cloud_RoleName`, `operation_Id`…); a Log Analytics
// workspace has the App* tables (`AppExceptions`…) with their own columns (`TimeGenerated`,
// `AppRoleName`, `OperationId`…). Output fields are the classic names on both, so a workspace
// query projects each column under its classic name (`cloud_RoleName = AppRoleName`) and every
// format prints the same thing: only the KQL differs.
import type { TelemetryBackend } from '../config/telemetry-config.js';

export type TableKind = 'exceptions' | 'requests' | 'traces' | 'dependencies';

export interface Dialect {
  readonly backend: TelemetryBackend;
  table(kind: TableKind): string;
  /** The backend's column holding the output field `field` (a classic column name). */
  column(field: string, kind?: TableKind): string;
}

const WORKSPACE_TABLES: Readonly<Record<TableKind, string>> = {
  exceptions: 'AppExceptions',
  requests: 'AppRequests',
  traces: 'AppTraces',
  dependencies: 'AppDependencies',
};

// The App* tables' columns of each classic one (learn.microsoft.com/azure/azure-monitor/reference/
// tables/apprequests and its siblings). A Map, so no field name can find Object's own properties.
const WORKSPACE_COLUMNS: ReadonlyMap<string, string> = new Map([
  ['timestamp', 'TimeGenerated'],
  ['cloud_RoleName', 'AppRoleName'],
  ['cloud_RoleInstance', 'AppRoleInstance'],
  ['operation_Id', 'OperationId'],
  ['operation_ParentId', 'ParentId'],
  ['id', 'Id'],
  ['name', 'Name'],
  ['resultCode', 'ResultCode'],
  ['duration', 'DurationMs'],
  ['success', 'Success'],
  ['severityLevel', 'SeverityLevel'],
  ['target', 'Target'],
  ['message', 'Message'],
  ['outerMessage', 'OuterMessage'],
  ['innermostMessage', 'InnermostMessage'],
  ['itemId', '_ItemId'],
]);

// `type` is ExceptionType in AppExceptions and DependencyType in AppDependencies.
const WORKSPACE_TYPE: Partial<Record<TableKind, string>> = {
  exceptions: 'ExceptionType',
  dependencies: 'DependencyType',
};

export const APP_DIALECT: Dialect = {
  backend: 'app',
  table: (kind) => kind,
  column: (field) => field,
};

export const WORKSPACE_DIALECT: Dialect = {
  backend: 'workspace',
  table: (kind) => WORKSPACE_TABLES[kind],
  column: (field, kind) => {
    const column =
      field === 'type' && kind !== undefined ? WORKSPACE_TYPE[kind] : WORKSPACE_COLUMNS.get(field);
    if (column === undefined) throw new Error(`no workspace column for ${field}`);
    return column;
  },
};

export function dialectOf(backend: TelemetryBackend): Dialect {
  return backend === 'app' ? APP_DIALECT : WORKSPACE_DIALECT;
}

/**
 * A `project` list: each field under its output name, as `field` where the backend calls it so
 * and `field = Column` where it does not; `computed` gives an expression for a field instead.
 */
export function projection(
  d: Dialect,
  kind: TableKind | undefined,
  fields: readonly string[],
  computed: Readonly<Record<string, string>> = {},
): string {
  return fields
    .map((field) => {
      const expression = Object.hasOwn(computed, field) ? computed[field] : d.column(field, kind);
      return expression === field ? field : `${field} = ${expression ?? field}`;
    })
    .join(', ');
}

/** The message of an exception: its own, else the outer, else the innermost exception's. */
export function exceptionMessage(d: Dialect, kind?: TableKind): string {
  const c = (field: string) => d.column(field, kind);
  return `coalesce(${c('message')}, ${c('outerMessage')}, ${c('innermostMessage')})`;
}
