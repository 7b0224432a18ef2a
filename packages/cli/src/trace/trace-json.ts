// The trace as data: `--format Json` prints the tree, jsonl/csv/tsv its nodes in display order
// with their depth. Every field the service returned is carried exactly; the computed ones
// (offsetMs, skewMs, error, orphan, criticalPath) sit beside them (docs/cli.md#one-trace-havn-otel-trace).
import type { RowView } from '../output/view.js';
import { pick } from '../output/view.js';
import type { Row } from '../upstream/coerce.js';
import { flatten, type TraceNode, type TraceTree } from './trace-tree.js';

export const TRACE_FIELDS = [
  'timestamp',
  'itemType',
  'id',
  'operation_ParentId',
  'name',
  'type',
  'target',
  'duration',
  'success',
  'resultCode',
  'message',
  'severityLevel',
  'cloud_RoleName',
  'cloud_RoleInstance',
  'itemId',
] as const;

const COMPUTED = ['offsetMs', 'skewMs', 'error', 'orphan', 'criticalPath'] as const;

export function traceJson(tree: TraceTree): unknown {
  const node = (n: TraceNode): Record<string, unknown> => ({
    ...computed(n, tree.start),
    children: n.children.map(node),
  });
  return {
    operationId: tree.operationId,
    start: tree.count === 0 ? null : new Date(tree.start).toISOString(),
    durationMs: tree.end - tree.start,
    items: tree.count,
    errors: tree.errors,
    roots: tree.roots.map(node),
  };
}

/** Rows of the flattened tree, for jsonl, csv and tsv. */
export function traceRows(tree: TraceTree): Row[] {
  return flatten(tree.roots).map(({ node, depth }) => ({ depth, ...computed(node, tree.start) }));
}

export const traceRowView: RowView = {
  noun: 'items',
  fields: ['depth', ...COMPUTED, ...TRACE_FIELDS],
  columns: [],
  json: (r) => pick(r, ['depth', ...COMPUTED, ...TRACE_FIELDS]),
};

function computed(n: TraceNode, start: number): Record<string, unknown> {
  return {
    ...pick(n.row, TRACE_FIELDS),
    offsetMs: n.start + n.skew - start,
    skewMs: n.skew,
    error: n.error,
    orphan: n.orphan,
    criticalPath: n.critical,
  };
}
