// --format (spec 3 §4.1): Table (default) and Json, plus jsonl and csv (issue 7). Names are
// case-insensitive.
import { UsageError } from '../errors.js';

export type OutputFormat = 'table' | 'json' | 'jsonl' | 'csv';

const FORMATS: readonly OutputFormat[] = ['table', 'json', 'jsonl', 'csv'];

export function parseFormat(value: string): OutputFormat {
  const format = value.trim().toLowerCase() as OutputFormat;
  if (!FORMATS.includes(format)) {
    throw new UsageError(`--format must be Table, Json, Jsonl or Csv; got '${value}'.`);
  }
  return format;
}
