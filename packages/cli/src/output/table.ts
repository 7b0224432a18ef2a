// The rounded-border table of --format Table. Every cell and header is stripped of control
// characters and escape sequences here, the last step before the terminal (docs/cli.md#safety).
import { stripControls } from './safe-text.js';
import { displayWidth, paint, type Tint } from './text.js';

export interface Cell {
  readonly text: string;
  readonly tint?: Tint | undefined;
}

export interface TableColumn {
  readonly header: string;
  readonly align?: 'left' | 'right';
}

export function renderTable(
  rawColumns: readonly TableColumn[],
  rawRows: readonly (readonly Cell[])[],
  color: boolean,
): string {
  const safe = (cell: Cell): Cell => ({
    ...cell,
    text: stripControls(cell.text).replace(/\t/g, ' '),
  });
  const columns = rawColumns.map((c) => ({ ...c, header: safe({ text: c.header }).text }));
  const rows = rawRows.map((row) => row.map(safe));
  const widths = columns.map((column, i) =>
    Math.max(displayWidth(column.header), ...rows.map((row) => displayWidth(row[i]?.text ?? ''))),
  );
  const border = (left: string, middle: string, right: string) =>
    paint(`${left}${widths.map((w) => '─'.repeat(w + 2)).join(middle)}${right}`, 'dim', color);
  const bar = paint('│', 'dim', color);
  const line = (cells: readonly Cell[]) =>
    `${bar}${columns
      .map((column, i) => {
        const cell = cells[i] ?? { text: '' };
        const gap = ' '.repeat((widths[i] ?? 0) - displayWidth(cell.text));
        const text = paint(cell.text, cell.tint, color);
        return ` ${column.align === 'right' ? gap + text : text + gap} `;
      })
      .join(bar)}${bar}`;
  const out = [
    border('╭', '┬', '╮'),
    line(columns.map((c) => ({ text: c.header, tint: 'bold' as const }))),
    border('├', '┼', '┤'),
    ...rows.map(line),
    border('╰', '┴', '╯'),
  ];
  return `${out.join('\n')}\n`;
}
