import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// AES-256 protection by Debian's qpdf (docs/render.md#protection). The passwords never appear on a
// command line (which every user of the machine can read in /proc): qpdf reads them from a job
// file in a folder only this process can open, removed as soon as qpdf is done.

export const PDF_PERMISSIONS = [
  'print',
  'modify',
  'extract',
  'annotate',
  'form',
  'assemble',
  'accessibility',
] as const;
export type PdfPermission = (typeof PDF_PERMISSIONS)[number];

export interface PdfProtection {
  /** Empty: anyone may open the document, within the permissions. */
  userPassword: string;
  ownerPassword: string;
  /** What a reader may do without the owner password; the rest is denied. */
  permissions: readonly PdfPermission[];
}

export interface QpdfTool {
  /** The qpdf binary (QPDF_PATH). */
  path: string;
  /** qpdf is killed past this. */
  timeoutMs: number;
}

/** qpdf could not protect the document; the message carries no password. */
export class PdfToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PdfToolError';
  }
}

/** The 256-bit section of a qpdf job: every permission said explicitly, granted or denied. */
function restrictions(granted: readonly PdfPermission[]): Record<string, string> {
  const yes = (p: PdfPermission) => (granted.includes(p) ? 'y' : 'n');
  return {
    print: granted.includes('print') ? 'full' : 'none',
    modifyOther: yes('modify'),
    extract: yes('extract'),
    annotate: yes('annotate'),
    form: yes('form'),
    assemble: yes('assemble'),
    accessibility: yes('accessibility'),
  };
}

/** `pdf` encrypted with AES-256 (PDF 2.0's R6) under the given passwords and permissions. */
export async function protect(
  pdf: Uint8Array,
  protection: PdfProtection,
  tool: QpdfTool,
): Promise<Buffer> {
  const dir = await mkdtemp(join(tmpdir(), 'havn-qpdf-'));
  try {
    const job = {
      inputFile: join(dir, 'in.pdf'),
      outputFile: join(dir, 'out.pdf'),
      encrypt: {
        userPassword: protection.userPassword,
        ownerPassword: protection.ownerPassword,
        '256bit': restrictions(protection.permissions),
      },
    };
    await writeFile(job.inputFile, pdf, { mode: 0o600 });
    await writeFile(join(dir, 'job.json'), JSON.stringify(job), { mode: 0o600 });
    await runQpdf(tool, [`--job-json-file=${join(dir, 'job.json')}`]);
    return await readFile(job.outputFile);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Runs qpdf; exit 0, or 3 (succeeded with warnings), is success. */
function runQpdf(tool: QpdfTool, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(tool.path, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 4096) stderr += chunk.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), tool.timeoutMs);
    child.on('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(
        new PdfToolError(
          err.code === 'ENOENT'
            ? `qpdf was not found at ${tool.path} (install Debian's qpdf or set QPDF_PATH)`
            : `qpdf could not start: ${err.message}`,
        ),
      );
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0 || code === 3) resolve();
      else {
        const why = signal
          ? `killed (${signal})`
          : (stderr.trim().split('\n')[0] ?? `exit ${code}`);
        reject(new PdfToolError(`qpdf failed: ${why}`));
      }
    });
  });
}
