// The table view of one trace: the tree on the left, a waterfall bar per span on the right scaled
// to the trace's duration, errors marked, the critical path drawn solid, every line within the
// terminal's width (docs/cli.md#one-trace-havn-otel-trace). Text from telemetry is stripped of
// control characters and escape sequences before it is measured or printed.
import { severityName } from '../kql/severity.js';
import { stripControls } from '../output/safe-text.js';
import { displayWidth, fitWidth, paint } from '../output/text.js';
import { durationCell } from '../output/view.js';
import { flatten, isSpan, type TraceNode, type TraceTree } from './trace-tree.js';

/** Width when stdout is not a terminal (a pipe or a file has none). */
export const DEFAULT_WIDTH = 100;
const DURATION_WIDTH = 9;
const MIN_BAR = 10;

const BAR = { critical: '█', other: '░', event: '◆' } as const;

export function renderWaterfall(tree: TraceTree, width: number, color: boolean): string {
  const rows = flatten(tree.roots);
  const total = Math.max(tree.end - tree.start, 1);
  const labels = rows.map((r) => label(r.node, r.lasts));
  const labelWidth = Math.max(
    8,
    Math.min(
      Math.max(...labels.map(displayWidth), 10),
      Math.floor(width * 0.45),
      width - DURATION_WIDTH - MIN_BAR - 2,
    ),
  );
  const barWidth = Math.max(1, width - labelWidth - DURATION_WIDTH - 2);
  const lines: string[] = [];
  const fit = (s: string) => fitWidth(s, width).trimEnd();
  lines.push(
    fit(
      `Operation ${stripControls(tree.operationId)}: ${summary(tree)}, ${durationCell(total).text} from ${new Date(tree.start).toISOString()}`,
    ),
  );
  const axisEnd = durationCell(total).text;
  const axis =
    barWidth > axisEnd.length + 2 ? `0${' '.repeat(barWidth - 1 - axisEnd.length)}${axisEnd}` : '';
  lines.push(`${' '.repeat(labelWidth + DURATION_WIDTH + 2)}${axis}`.trimEnd());
  rows.forEach((r, i) => {
    const n = r.node;
    const name = fitWidth(labels[i] ?? '', labelWidth);
    const duration = isSpan(n) ? durationCell(n.duration).text : '';
    const bar = barOf(n, tree.start, total, barWidth, color);
    const tint = n.error ? 'red' : undefined;
    lines.push(`${paint(name, tint, color)} ${duration.padStart(DURATION_WIDTH)} ${bar}`.trimEnd());
  });
  lines.push(
    fit(
      `${BAR.critical} critical path  ${BAR.other} span  ${BAR.event} event  ✗ error  ~ moved for clock skew  ⊘ parent not found`,
    ),
  );
  return `${lines.join('\n')}\n`;
}

function summary(tree: TraceTree): string {
  const items = `${String(tree.count)} item${tree.count === 1 ? '' : 's'}`;
  return `${items}, ${String(tree.errors)} error${tree.errors === 1 ? '' : 's'}`;
}

function label(n: TraceNode, lasts: readonly boolean[]): string {
  // Tree lines: ancestors' continuation, then this node's branch.
  const prefix = lasts
    .map((last, i) => (i === lasts.length - 1 ? (last ? '└─' : '├─') : last ? '  ' : '│ '))
    .join('');
  const marks = `${n.orphan ? '⊘ ' : ''}${n.error ? '✗ ' : ''}`;
  const skew = n.moved ? ' ~' : '';
  return `${prefix}${marks}${describe(n)}${skew}`;
}

function describe(n: TraceNode): string {
  const r = n.row;
  // stripControls has made line breaks spaces already; a tab would still be two columns or eight.
  const clean = (v: unknown) => stripControls(typeof v === 'string' ? v : '').replace(/\t/g, ' ');
  switch (n.kind) {
    case 'request':
      return `${clean(r.name)}${r.cloud_RoleName ? ` @${clean(r.cloud_RoleName)}` : ''}`;
    case 'dependency':
      return `${r.type ? `[${clean(r.type)}] ` : ''}${clean(r.name) || clean(r.target)}`;
    case 'exception':
      return `${clean(r.type)}: ${clean(r.message)}`;
    case 'trace':
      return `${severityName(typeof r.severityLevel === 'number' ? r.severityLevel : null)}: ${clean(r.message)}`;
  }
}

function barOf(n: TraceNode, start: number, total: number, width: number, color: boolean): string {
  const offset = n.start + n.skew - start;
  const from = Math.min(width - 1, Math.max(0, Math.floor((offset / total) * width)));
  if (!isSpan(n)) {
    return `${' '.repeat(from)}${paint(BAR.event, n.error ? 'red' : 'dim', color)}`;
  }
  const to = Math.min(
    width,
    Math.max(from + 1, Math.ceil(((offset + n.duration) / total) * width)),
  );
  const char = n.critical ? BAR.critical : BAR.other;
  const tint = n.error ? 'red' : n.critical ? 'yellow' : 'dim';
  return `${' '.repeat(from)}${paint(char.repeat(to - from), tint, color)}`;
}
