// --format: Table (default) and Json, plus jsonl, csv and tsv (docs/cli.md#output). Names are
// case-insensitive.
import { UsageError } from '../errors.js';

export type OutputFormat = 'table' | 'json' | 'jsonl' | 'csv' | 'tsv';

const FORMATS: readonly OutputFormat[] = ['table', 'json', 'jsonl', 'csv', 'tsv'];

export function parseFormat(value: string): OutputFormat {
  const format = value.trim().toLowerCase() as OutputFormat;
  if (!FORMATS.includes(format)) {
    throw new UsageError(`--format must be Table, Json, Jsonl, Csv or Tsv; got '${value}'.`);
  }
  return format;
}
