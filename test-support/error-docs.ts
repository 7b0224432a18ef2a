// What the error-catalogue tests of render and forms share: docs/errors.md holds each package's
// catalogue as a table between two markers, written from the catalogue itself, so the page cannot
// drift from the code (UPDATE_ERROR_DOCS=1 rewrites it).
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ErrorEntry } from '@havn/shared';
import { format, resolveConfig } from 'prettier';
import { expect } from 'vitest';

const page = new URL('../docs/errors.md', import.meta.url);

/** One package's section of docs/errors.md. */
export interface ErrorSection {
  /** The package's short name, as in the markers: `render`, `forms`. */
  name: string;
  /** The catalogue's file, from the repository root, named in the opening marker. */
  source: string;
  entries: readonly (ErrorEntry & { code: string })[];
}

/** The table a section holds between its markers. */
function table(entries: ErrorSection['entries']): string {
  const rows = entries.map(
    (e) => `| \`${e.code}\` | ${String(e.status)} | \`${e.message.replaceAll('|', '\\|')}\` |`,
  );
  return ['| code | status | message |', '| --- | --- | --- |', ...rows].join('\n');
}

/** Expects docs/errors.md to list the section's catalogue as it is; rewrites it when asked to. */
export async function expectErrorDocs(section: ErrorSection): Promise<void> {
  const begin = `<!-- ${section.name} errors: generated from ${section.source} -->`;
  const end = `<!-- end of ${section.name} errors -->`;
  const text = readFileSync(page, 'utf8');
  const [before, rest] = text.split(begin);
  const after = rest?.split(end)[1];
  expect(after, `docs/errors.md lacks the markers ${begin} … ${end}`).toBeDefined();
  // As the repository's Prettier writes the page, so that the check and the lint agree.
  const path = fileURLToPath(page);
  const expected = await format(
    `${before ?? ''}${begin}\n\n${table(section.entries)}\n\n${end}${after ?? ''}`,
    { ...(await resolveConfig(path)), filepath: path },
  );
  if (process.env.UPDATE_ERROR_DOCS === '1') writeFileSync(page, expected);
  else expect(text).toBe(expected);
}

/** Expects every code once, each `<PREFIX>_<NAME>` in capitals. */
export function expectCodesWellFormed(prefix: string, entries: ErrorSection['entries']): void {
  const codes = entries.map((e) => e.code);
  expect(new Set(codes).size).toBe(codes.length);
  for (const code of codes) expect(code).toMatch(new RegExp(`^${prefix}_[A-Z0-9_]+$`));
}
