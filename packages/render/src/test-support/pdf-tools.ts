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
