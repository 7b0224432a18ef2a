import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

// The tests judge PDFs with tools nobody here wrote: poppler's pdfinfo and pdftotext, and qpdf.

const run = promisify(execFile);

export interface ToolResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `cmd args… file after…` on `pdf` written to a temporary file; never throws on failure. */
export async function onPdf(
  pdf: Buffer,
  cmd: string,
  args: string[],
  after: string[] = [],
): Promise<ToolResult> {
  const dir = await mkdtemp(join(tmpdir(), 'havn-pdf-test-'));
  const file = join(dir, 'doc.pdf');
  try {
    await writeFile(file, pdf);
    const out = await run(cmd, [...args, file, ...after], { maxBuffer: 64 * 1024 * 1024 });
    return { code: 0, stdout: out.stdout, stderr: out.stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** pdfinfo's "Key: value" lines as a map. */
export async function pdfInfo(pdf: Buffer, args: string[] = []): Promise<Map<string, string>> {
  const { stdout, stderr, code } = await onPdf(pdf, 'pdfinfo', args);
  if (code !== 0) throw new Error(`pdfinfo failed: ${stderr}`);
  return new Map(
    stdout
      .split('\n')
      .map((line) => /^([^:]+):\s*(.*)$/.exec(line))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => [m[1] ?? '', m[2] ?? '']),
  );
}

/** The text of each page, as pdftotext reads it (pages split on form feed). */
export async function pdfPages(pdf: Buffer, args: string[] = []): Promise<string[]> {
  const { stdout, code, stderr } = await onPdf(pdf, 'pdftotext', [...args, '-layout'], ['-']);
  if (code !== 0) throw new Error(`pdftotext failed: ${stderr}`);
  return stdout.split('\f').slice(0, -1);
}

/** qpdf --check: throws with qpdf's words unless the structure is sound. */
export async function qpdfCheck(pdf: Buffer, password?: string): Promise<void> {
  const args = ['--check', ...(password === undefined ? [] : [`--password=${password}`])];
  const { code, stdout, stderr } = await onPdf(pdf, 'qpdf', args);
  if (code !== 0 || !/No syntax or stream encoding errors found/.test(stdout)) {
    throw new Error(`qpdf --check failed (${code}): ${stdout}\n${stderr}`);
  }
}

/** The titles of the document's outline (bookmarks), top level first, as qpdf reads them. */
export async function outlineTitles(pdf: Buffer): Promise<string[]> {
  const { stdout, code, stderr } = await onPdf(pdf, 'qpdf', ['--json', '--json-key=outlines']);
  if (code !== 0) throw new Error(`qpdf --json failed: ${stderr}`);
  interface Item {
    title: string;
    kids: Item[];
  }
  const walk = (items: Item[]): string[] => items.flatMap((i) => [i.title, ...walk(i.kids)]);
  return walk((JSON.parse(stdout) as { outlines: Item[] }).outlines);
}

/** The outline as lines `title @page`, two spaces of indent per level, as qpdf reads it. */
export async function outlineTree(pdf: Buffer): Promise<string[]> {
  const { stdout, code, stderr } = await onPdf(pdf, 'qpdf', ['--json', '--json-key=outlines']);
  if (code !== 0) throw new Error(`qpdf --json failed: ${stderr}`);
  interface Item {
    title: string;
    destpageposfrom1: number | null;
    kids: Item[];
  }
  const walk = (items: Item[], indent: string): string[] =>
    items.flatMap((i) => [
      `${indent}${i.title} @${String(i.destpageposfrom1)}`,
      ...walk(i.kids, `${indent}  `),
    ]);
  return walk((JSON.parse(stdout) as { outlines: Item[] }).outlines, '');
}

/**
 * What is wrong with the way pages find their structure elements, as qpdf reads the file: each
 * page's /StructParents must name a parent-tree entry whose elements all sit on that page.
 */
export async function parentTreeProblems(pdf: Buffer): Promise<string[]> {
  const { stdout, code, stderr } = await onPdf(pdf, 'qpdf', [
    '--json',
    '--json-key=qpdf',
    '--json-key=pages',
  ]);
  if (code !== 0) throw new Error(`qpdf --json failed: ${stderr}`);
  type Value = string | number | boolean | null | Value[] | { [key: string]: Value };
  const json = JSON.parse(stdout) as {
    pages: { object: string; pageposfrom1: number }[];
    qpdf: [unknown, Record<string, { value?: Value }>];
  };
  const objects = json.qpdf[1];
  const get = (ref: Value | undefined): Value | undefined =>
    typeof ref === 'string' && / R$/.test(ref) ? objects[`obj:${ref}`]?.value : ref;
  const dict = (v: Value | undefined) =>
    (typeof v === 'object' && v !== null && !Array.isArray(v) ? v : {}) as Record<string, Value>;
  const catalog = dict(
    Object.values(objects)
      .map((o) => o.value)
      .find((v) => dict(v)['/Type'] === '/Catalog'),
  );
  const root = dict(get(catalog['/StructTreeRoot']));
  const nums = dict(get(root['/ParentTree']))['/Nums'];
  const entries = new Map<number, Value>();
  const list = Array.isArray(nums) ? nums : [];
  for (let i = 0; i + 1 < list.length; i += 2) entries.set(list[i] as number, list[i + 1]!);
  const problems: string[] = [];
  for (const page of json.pages) {
    const key = dict(get(page.object))['/StructParents'];
    if (typeof key !== 'number') {
      problems.push(`page ${page.pageposfrom1} has no /StructParents`);
      continue;
    }
    const elements = get(entries.get(key));
    if (!Array.isArray(elements) || elements.length === 0) {
      problems.push(`page ${page.pageposfrom1}: no parent-tree entry ${key}`);
      continue;
    }
    for (const element of elements) {
      const on = dict(get(element))['/Pg'];
      if (element !== null && on !== page.object) {
        problems.push(
          `page ${page.pageposfrom1}: entry ${key} holds ${JSON.stringify(element)} of ${JSON.stringify(on)}`,
        );
      }
    }
  }
  return problems;
}
