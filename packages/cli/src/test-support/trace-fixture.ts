// A distributed trace in the query API's wire format, as `havn otel trace` receives it: a root
// request on `frontend`, sequential HTTP calls each served by a backend request with SQL calls
// under it (four levels), one backend whose clock runs 400 ms behind, a failing call with its
// exception and error log, and orphans whose parents are missing. Deterministic; the tests and
// the benchmark share it.
import { table } from './fake-app-insights.js';

export const TRACE_COLUMNS = [
  ['timestamp', 'datetime'],
  ['itemType', 'string'],
  ['id', 'string'],
  ['operation_ParentId', 'string'],
  ['name', 'string'],
  ['type', 'string'],
  ['target', 'string'],
  ['duration', 'real'],
  ['success', 'bool'],
  ['resultCode', 'string'],
  ['message', 'string'],
  ['severityLevel', 'int'],
  ['cloud_RoleName', 'string'],
  ['cloud_RoleInstance', 'string'],
  ['itemId', 'string'],
] as const;

export interface TraceFixture {
  readonly operationId: string;
  readonly body: unknown;
  readonly spans: number;
  readonly items: number;
  readonly rootId: string;
  /** Ids of the spans on the critical path, root first. */
  readonly criticalPath: readonly string[];
  /** The backend request whose clock is behind, and by how much. */
  readonly skewedId: string;
  readonly skewMs: number;
  readonly orphanIds: readonly string[];
  readonly failedIds: readonly string[];
}

const T0 = Date.parse('2026-11-21T10:00:00.000Z');
const ROOT_MS = 2000;
const SKEW_MS = -400;

interface Item {
  at: number;
  kind: string;
  id?: string;
  parent: string;
  name?: string;
  type?: string;
  target?: string;
  ms?: number;
  ok?: boolean;
  code?: string;
  message?: string;
  severity?: number;
  role: string;
  instance: string;
}

/** A trace of `spans` spans (requests and dependencies), at least 50. */
export function traceFixture(
  spans = 60,
  operationId = '4bf92f3577b34da6a3ce929d0e0e4736',
): TraceFixture {
  const items: Item[] = [];
  let next = 0;
  const id = () => `span-${String(next++).padStart(4, '0')}`;
  const rootId = id();
  items.push({
    at: T0,
    kind: 'request',
    id: rootId,
    parent: operationId,
    name: 'GET /checkout',
    ms: ROOT_MS,
    ok: true,
    code: '200',
    role: 'frontend',
    instance: 'fe-1',
  });
  items.push({
    at: T0 + 3,
    kind: 'trace',
    parent: rootId,
    message: 'cart has 3 items',
    severity: 1,
    role: 'frontend',
    instance: 'fe-1',
  });
  // Orphans: a worker's calls whose parent span never arrived, and a log entry likewise.
  const orphanIds = [id(), id()];
  orphanIds.forEach((o, i) => {
    items.push({
      at: T0 + 50 + i * 10,
      kind: 'dependency',
      id: o,
      parent: 'span-gone-1',
      name: 'publish order',
      type: 'Azure Service Bus',
      target: 'orders',
      ms: 30,
      ok: true,
      code: '0',
      role: 'worker',
      instance: 'wk-1',
    });
  });
  items.push({
    at: T0 + 70,
    kind: 'trace',
    parent: 'span-gone-2',
    message: 'retrying publish',
    severity: 2,
    role: 'worker',
    instance: 'wk-1',
  });
  const budget = spans - 1 - orphanIds.length;
  const sqlPerGroup = 3;
  const groups = Math.ceil(budget / (2 + sqlPerGroup));
  const slot = (ROOT_MS - 40) / groups;
  const criticalPath = [rootId];
  const failedIds: string[] = [];
  let skewedId = '';
  let left = budget;
  for (let g = 0; g < groups && left > 0; g++) {
    const skewed = g === 1;
    const failing = g === 2;
    const role = skewed ? 'inventory' : `api-${String(g % 3)}`;
    const instance = `${role}-1`;
    const shift = skewed ? SKEW_MS : 0;
    const depId = id();
    const depStart = T0 + 20 + g * slot;
    const depMs = slot * 0.9;
    items.push({
      at: depStart,
      kind: 'dependency',
      id: depId,
      parent: rootId,
      name: `GET /api/part/${String(g)}`,
      type: 'HTTP',
      target: `${role}.internal`,
      ms: depMs,
      ok: !failing,
      code: failing ? '500' : '200',
      role: 'frontend',
      instance: 'fe-1',
    });
    left--;
    if (left === 0) break;
    const reqId = id();
    const reqStart = depStart + 5 + shift;
    const reqMs = depMs - 10;
    items.push({
      at: reqStart,
      kind: 'request',
      id: reqId,
      parent: depId,
      name: `GET /part/${String(g)}`,
      ms: reqMs,
      ok: !failing,
      code: failing ? '500' : '200',
      role,
      instance,
    });
    left--;
    if (skewed) skewedId = reqId;
    if (failing) {
      failedIds.push(depId, reqId);
      items.push({
        at: reqStart + reqMs - 2,
        kind: 'exception',
        parent: reqId,
        type: 'System.TimeoutException',
        message: 'The SQL command timed out',
        role,
        instance,
      });
      items.push({
        at: reqStart + reqMs - 1,
        kind: 'trace',
        parent: reqId,
        message: 'request failed',
        severity: 3,
        role,
        instance,
      });
    }
    const sqlMs = (reqMs - 10) / sqlPerGroup;
    let lastSql = '';
    for (let s = 0; s < sqlPerGroup && left > 0; s++) {
      lastSql = id();
      items.push({
        at: reqStart + 5 + s * sqlMs,
        kind: 'dependency',
        id: lastSql,
        parent: reqId,
        name: `SELECT part ${String(s)}`,
        type: 'SQL',
        target: 'db.internal | shop',
        ms: sqlMs * 0.95,
        ok: true,
        code: '0',
        role,
        instance,
      });
      left--;
    }
    if (g === groups - 1 || left === 0)
      criticalPath.push(depId, reqId, ...(lastSql ? [lastSql] : []));
  }
  items.sort((a, b) => a.at - b.at);
  const rows = items.map((it, i) => [
    new Date(it.at).toISOString().replace('Z', '0000Z'),
    it.kind,
    it.id ?? null,
    it.parent,
    it.name ?? null,
    it.type ?? null,
    it.target ?? null,
    it.ms === undefined ? null : it.ms.toFixed(3),
    it.ok === undefined ? null : it.ok ? 'True' : 'False',
    it.code ?? null,
    it.message ?? null,
    it.severity === undefined ? null : String(it.severity),
    it.role,
    it.instance,
    `item-${String(i)}`,
  ]);
  return {
    operationId,
    body: table(TRACE_COLUMNS, rows),
    spans: items.filter((it) => it.id !== undefined).length,
    items: items.length,
    rootId,
    criticalPath,
    skewedId,
    skewMs: -SKEW_MS,
    orphanIds,
    failedIds,
  };
}
