// The query API answers `{ tables: [ { name, columns: [{ name, type }], rows: [[...]] } ] }` and
// sends numbers and booleans as strings ("3", "True") and `dynamic` as JSON text, though it may
// also send real JSON numbers. Rows are zipped with the columns and coerced by type.

export interface Column {
  readonly name: string;
  readonly type: string;
}

export type Row = Readonly<Record<string, unknown>>;

export interface ResultTable {
  readonly columns: readonly Column[];
  readonly rows: readonly Row[];
}

const NUMERIC = new Set(['int', 'long', 'real', 'double', 'decimal', 'float']);
const BOOLEAN = new Set(['bool', 'boolean']);

/** The primary result table of a query answer, rows zipped and coerced. */
export function primaryTable(answer: unknown): ResultTable {
  const tables = isRecord(answer) && Array.isArray(answer.tables) ? answer.tables : [];
  const table: unknown = tables.find((t) => isRecord(t) && t.name === 'PrimaryResult') ?? tables[0];
  if (!isRecord(table)) return { columns: [], rows: [] };
  const columns: Column[] = (Array.isArray(table.columns) ? table.columns : []).map((c) => ({
    name: isRecord(c) && typeof c.name === 'string' ? c.name : '',
    type: isRecord(c) && typeof c.type === 'string' ? c.type.toLowerCase() : 'string',
  }));
  const rows = (Array.isArray(table.rows) ? table.rows : []).map((cells: unknown) => {
    const row: Record<string, unknown> = {};
    const list = Array.isArray(cells) ? cells : [];
    columns.forEach((column, i) => {
      row[column.name] = coerce(list[i] ?? null, column.type);
    });
    return row;
  });
  return { columns, rows };
}

export function coerce(value: unknown, type: string): unknown {
  if (value === null || value === undefined) return null;
  if (NUMERIC.has(type)) {
    if (typeof value === 'number') return value;
    if (typeof value === 'string' && value.trim() !== '') {
      const n = Number(value);
      return Number.isFinite(n) ? n : null;
    }
    return null;
  }
  if (BOOLEAN.has(type)) {
    if (typeof value === 'boolean') return value;
    if (typeof value === 'number') return value !== 0;
    if (typeof value === 'string') {
      const v = value.trim().toLowerCase();
      if (v === 'true' || v === '1') return true;
      if (v === 'false' || v === '0') return false;
    }
    return null;
  }
  if (type === 'dynamic' && typeof value === 'string') {
    try {
      return JSON.parse(value) as unknown;
    } catch {
      return value;
    }
  }
  return value;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
