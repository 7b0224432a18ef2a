// One distributed trace as a tree (docs/cli.md#one-trace-havn-otel-trace): requests and
// dependencies are spans with an id; exceptions and log entries are events inside the span named
// by their operation_ParentId. Three things real traces do that a naive tree gets wrong:
// - orphans: a parent that is not in the result (sampled out, still being ingested, outside the
//   window) leaves its children at the top, marked, rather than dropped;
// - clock skew: a span recorded by another machine may appear to start before its caller; as
//   Jaeger's adjuster does, such a span (and its subtree) is moved into its parent, centred, and
//   the shift is reported;
// - cycles from bad ids, which would otherwise never end.
import type { Row } from '../upstream/coerce.js';

export type ItemKind = 'request' | 'dependency' | 'exception' | 'trace';

export interface TraceNode {
  readonly row: Row;
  readonly kind: ItemKind;
  /** Raw start (epoch ms) and duration (ms; 0 for events). */
  readonly start: number;
  readonly duration: number;
  readonly error: boolean;
  readonly children: TraceNode[];
  orphan: boolean;
  /** Shift applied for clock skew (ms), this node's own plus its ancestors'. */
  skew: number;
  /** This node itself was moved into its parent for clock skew. */
  moved: boolean;
  critical: boolean;
}

export interface TraceTree {
  readonly operationId: string;
  readonly roots: readonly TraceNode[];
  /** Adjusted bounds of everything in the trace (epoch ms). */
  readonly start: number;
  readonly end: number;
  readonly count: number;
  readonly errors: number;
}

const KIND_ORDER: Record<ItemKind, number> = { request: 0, dependency: 1, trace: 2, exception: 3 };

export function buildTraceTree(operationId: string, rows: readonly Row[]): TraceTree {
  const nodes = rows.map(toNode).filter((n): n is TraceNode => n !== undefined);
  const byId = new Map<string, TraceNode>();
  for (const n of nodes) {
    const id = text(n.row.id);
    if (isSpan(n) && id !== '' && !byId.has(id)) byId.set(id, n);
  }
  const parentOf = new Map<TraceNode, TraceNode>();
  for (const n of nodes) {
    const parent = byId.get(text(n.row.operation_ParentId));
    if (parent && parent !== n) parentOf.set(n, parent);
  }
  // Walk up from each node to a root or to a node already checked; a walk that meets a node of
  // its own path twice has found a cycle: cut it there.
  const checked = new Set<TraceNode>();
  for (const n of nodes) {
    const path = new Set<TraceNode>();
    for (let p: TraceNode | undefined = n; p && !checked.has(p); p = parentOf.get(p)) {
      if (path.has(p)) {
        parentOf.delete(p);
        break;
      }
      path.add(p);
    }
    for (const p of path) checked.add(p);
  }
  const tops: TraceNode[] = [];
  for (const n of nodes) {
    const parent = parentOf.get(n);
    if (parent) parent.children.push(n);
    else tops.push(n);
  }
  const byTime = (a: TraceNode, b: TraceNode) =>
    a.start - b.start || KIND_ORDER[a.kind] - KIND_ORDER[b.kind];
  for (const n of nodes) n.children.sort(byTime);
  tops.sort(byTime);
  const root = tops.find((n) => n.kind === 'request') ?? tops[0];
  for (const n of tops) {
    const parentId = text(n.row.operation_ParentId);
    // A root's parent is empty, the operation id, or its caller's uninstrumented span.
    if (n !== root && parentId !== '' && parentId !== operationId) n.orphan = true;
  }
  for (const n of tops) adjustSkew(n);
  if (root) markCriticalPath(root);
  let start = Infinity;
  let end = -Infinity;
  for (const n of nodes) {
    start = Math.min(start, n.start + n.skew);
    end = Math.max(end, n.start + n.skew + n.duration);
  }
  return {
    operationId,
    roots: tops,
    start: Number.isFinite(start) ? start : 0,
    end: Number.isFinite(end) ? end : 0,
    count: nodes.length,
    errors: nodes.filter((n) => n.error).length,
  };
}

/** The nodes in display order, each with its depth and whether it is its parent's last child. */
export function flatten(
  roots: readonly TraceNode[],
): { node: TraceNode; depth: number; lasts: boolean[] }[] {
  const out: { node: TraceNode; depth: number; lasts: boolean[] }[] = [];
  const walk = (n: TraceNode, lasts: boolean[]) => {
    out.push({ node: n, depth: lasts.length, lasts });
    n.children.forEach((c, i) => {
      walk(c, [...lasts, i === n.children.length - 1]);
    });
  };
  for (const r of roots) walk(r, []);
  return out;
}

export function isSpan(n: TraceNode): boolean {
  return n.kind === 'request' || n.kind === 'dependency';
}

function toNode(row: Row): TraceNode | undefined {
  const kind = text(row.itemType);
  if (kind !== 'request' && kind !== 'dependency' && kind !== 'exception' && kind !== 'trace') {
    return undefined;
  }
  const start = Date.parse(text(row.timestamp));
  if (Number.isNaN(start)) return undefined;
  const span = kind === 'request' || kind === 'dependency';
  const duration = span && typeof row.duration === 'number' && row.duration > 0 ? row.duration : 0;
  const error =
    kind === 'exception' ||
    (span && row.success === false) ||
    (kind === 'trace' && typeof row.severityLevel === 'number' && row.severityLevel >= 3);
  return {
    row,
    kind,
    start,
    duration,
    error,
    children: [],
    orphan: false,
    skew: 0,
    moved: false,
    critical: false,
  };
}

// Only across machines: within one process a child outside its parent is real (work that goes on
// after the response), not skew.
function adjustSkew(parent: TraceNode): void {
  for (const child of parent.children) {
    child.skew = parent.skew;
    const pStart = parent.start + parent.skew;
    const cStart = child.start + child.skew;
    const outside = cStart < pStart || cStart + child.duration > pStart + parent.duration;
    if (
      isSpan(child) &&
      outside &&
      child.duration <= parent.duration &&
      host(child) !== host(parent)
    ) {
      child.skew += pStart + (parent.duration - child.duration) / 2 - cStart;
      child.moved = true;
    }
    adjustSkew(child);
  }
}

// The chain of spans that ends last at each level: the spans whose time the whole trace waited on.
function markCriticalPath(root: TraceNode): void {
  let current: TraceNode | undefined = root;
  while (current) {
    current.critical = true;
    let next: TraceNode | undefined;
    for (const c of current.children) {
      if (!isSpan(c)) continue;
      if (!next || end(c) > end(next)) next = c;
    }
    current = next;
  }
}

function end(n: TraceNode): number {
  return n.start + n.skew + n.duration;
}

function host(n: TraceNode): string {
  return `${text(n.row.cloud_RoleName)}/${text(n.row.cloud_RoleInstance)}`;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}
