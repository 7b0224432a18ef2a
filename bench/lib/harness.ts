// The benchmark harness (docs/benchmarks.md): each benchmark measures its subject beside a baseline
// in the same run, then prints a table and a one-line summary (ratios, since machines are noisy).

/** The p-th percentile (0-100) of `values`, nearest-rank. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] ?? NaN;
}

export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

type Cell = string | number;

function show(cell: Cell): string {
  if (typeof cell === 'string') return cell;
  return Number.isInteger(cell) ? String(cell) : cell.toFixed(2);
}

/** Prints rows as an aligned table under a title. */
export function printTable(title: string, rows: readonly Record<string, Cell>[]): void {
  console.log(`\n${title}`);
  const first = rows[0];
  if (!first) return;
  const columns = Object.keys(first);
  const widths = columns.map((c) =>
    Math.max(c.length, ...rows.map((r) => show(r[c] ?? '').length)),
  );
  const line = (cells: string[]) => cells.map((c, i) => c.padStart(widths[i] ?? 0)).join('  ');
  console.log(line(columns));
  console.log(line(widths.map((w) => '-'.repeat(w))));
  for (const row of rows) console.log(line(columns.map((c) => show(row[c] ?? ''))));
}

/** The one-line summary every benchmark ends with. */
export function printSummary(name: string, text: string): void {
  console.log(`\nsummary ${name}: ${text}`);
}
