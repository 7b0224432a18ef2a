// The tables and columns of both telemetry backends, with their types, as Azure documents them
// (learn.microsoft.com: azure-monitor/reference/tables/appexceptions, apprequests, apptraces,
// appdependencies, and the standard columns; the classic Application Insights schema), and a
// check of a query's table and column names against them. The fake answers a query that names a
// table or column its backend does not have with the 400 the real API gives, so a query built
// with the other backend's names fails its tests.

export type Backend = 'app' | 'workspace';

type Columns = Readonly<Record<string, string>>;

const CLASSIC_COMMON: Columns = {
  timestamp: 'datetime',
  itemType: 'string',
  itemId: 'string',
  itemCount: 'int',
  operation_Id: 'string',
  operation_ParentId: 'string',
  operation_Name: 'string',
  cloud_RoleName: 'string',
  cloud_RoleInstance: 'string',
  customDimensions: 'dynamic',
  customMeasurements: 'dynamic',
  appName: 'string',
  sdkVersion: 'string',
};

const WORKSPACE_COMMON: Columns = {
  TimeGenerated: 'datetime',
  Type: 'string',
  _ItemId: 'string',
  TenantId: 'string',
  _ResourceId: 'string',
  ItemCount: 'int',
  OperationId: 'string',
  ParentId: 'string',
  OperationName: 'string',
  AppRoleName: 'string',
  AppRoleInstance: 'string',
  AppVersion: 'string',
  Properties: 'dynamic',
  Measurements: 'dynamic',
  SDKVersion: 'string',
  SessionId: 'string',
  UserId: 'string',
  ClientType: 'string',
};

export const SCHEMAS: Readonly<Record<Backend, Readonly<Record<string, Columns>>>> = {
  app: {
    exceptions: {
      ...CLASSIC_COMMON,
      type: 'string',
      message: 'string',
      outerMessage: 'string',
      outerType: 'string',
      innermostMessage: 'string',
      innermostType: 'string',
      problemId: 'string',
      severityLevel: 'int',
      details: 'dynamic',
    },
    requests: {
      ...CLASSIC_COMMON,
      id: 'string',
      name: 'string',
      url: 'string',
      success: 'bool',
      resultCode: 'string',
      duration: 'real',
      source: 'string',
    },
    traces: { ...CLASSIC_COMMON, message: 'string', severityLevel: 'int' },
    dependencies: {
      ...CLASSIC_COMMON,
      id: 'string',
      name: 'string',
      target: 'string',
      type: 'string',
      data: 'string',
      success: 'bool',
      resultCode: 'string',
      duration: 'real',
    },
  },
  workspace: {
    AppExceptions: {
      ...WORKSPACE_COMMON,
      ExceptionType: 'string',
      Message: 'string',
      OuterMessage: 'string',
      OuterType: 'string',
      InnermostMessage: 'string',
      InnermostType: 'string',
      ProblemId: 'string',
      SeverityLevel: 'int',
      Details: 'dynamic',
    },
    AppRequests: {
      ...WORKSPACE_COMMON,
      Id: 'string',
      Name: 'string',
      Url: 'string',
      Success: 'bool',
      ResultCode: 'string',
      DurationMs: 'real',
      Source: 'string',
    },
    AppTraces: { ...WORKSPACE_COMMON, Message: 'string', SeverityLevel: 'int' },
    AppDependencies: {
      ...WORKSPACE_COMMON,
      Id: 'string',
      Name: 'string',
      Target: 'string',
      DependencyType: 'string',
      Data: 'string',
      Success: 'bool',
      ResultCode: 'string',
      DurationMs: 'real',
    },
  },
};

// KQL words that are not names of anything.
const KEYWORDS = new Set([
  'where',
  'project',
  'extend',
  'order',
  'sort',
  'by',
  'asc',
  'desc',
  'take',
  'limit',
  'top',
  'and',
  'or',
  'not',
  'true',
  'false',
  'union',
  'let',
  'in',
  'has',
  'contains',
  'between',
  'nulls',
  'first',
  'last',
]);

/**
 * The innermost error message the API gives for the first table or column `query` names that the
 * backend does not have; undefined when every name resolves, or when the query starts from
 * nothing the check knows (a test's stand-in query such as `q`).
 */
export function schemaError(query: string, backend: Backend): string | undefined {
  const tables = SCHEMAS[backend];
  const other = SCHEMAS[backend === 'app' ? 'workspace' : 'app'];
  // String literals and datetime() contents hold no names.
  const text = query
    .replace(/'(?:[^'\\]|\\.)*'/g, "''")
    .replace(/datetime\([^)]*\)/g, 'datetime()');
  const statements = text.split(';').map((s) => s.trim());
  const tabular = statements.pop() ?? '';
  const known = new Set<string>();
  for (const statement of statements) {
    const name = /^let\s+(\w+)\s*=/.exec(statement)?.[1];
    if (name !== undefined) known.add(name);
  }
  const [source = '', ...stages] = tabular.split('|').map((s) => s.trim());
  const sources = source.replace(/^union\s+/, '').split(/\s*,\s*/);
  for (const table of sources) {
    if (Object.hasOwn(tables, table)) {
      for (const column of Object.keys(tables[table] ?? {})) known.add(column);
    } else if (Object.hasOwn(other, table)) {
      return `Failed to resolve table or column expression named '${table}'`;
    } else {
      return undefined;
    }
  }
  for (const stage of stages) {
    const operator = /^\w+/.exec(stage)?.[0] ?? '';
    if (operator === 'summarize') return undefined;
    const defined = new Set<string>();
    const used: string[] = [];
    for (const match of stage.matchAll(/(?<![\w.$])[A-Za-z_]\w*/g)) {
      const name = match[0];
      const after = stage.slice(match.index + name.length);
      if (KEYWORDS.has(name) || /^\s*\(/.test(after)) continue;
      if (/^\s*=(?!=)/.test(after)) defined.add(name);
      else used.push(name);
    }
    for (const name of used) {
      if (!known.has(name)) {
        return `'${operator}' operator: Failed to resolve scalar expression named '${name}'`;
      }
    }
    if (operator === 'project') {
      // Afterwards only the projected names exist: `a = expr` gives a, a bare `b` gives b.
      known.clear();
      for (const item of topLevelItems(stage.replace(/^project\s+/, ''))) {
        const name = /^\s*([A-Za-z_]\w*)/.exec(item)?.[1];
        if (name !== undefined) known.add(name);
      }
    } else {
      for (const name of defined) known.add(name);
    }
  }
  return undefined;
}

/** The comma-separated items of a list, commas inside parentheses kept. */
function topLevelItems(list: string): string[] {
  const items: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of list) {
    if (char === '(') depth += 1;
    if (char === ')') depth -= 1;
    if (char === ',' && depth === 0) {
      items.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  return [...items, current];
}
