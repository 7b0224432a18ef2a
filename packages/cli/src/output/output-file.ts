// `-o <file>` and `-o -` (docs/cli.md#files-and-standard-output): bytes go to a file, replaced
// atomically (a temporary file renamed, so an interrupted command never leaves half a PNG under
// the real name), or to stdout, where a terminal gets no binary and text is made safe.
import { rename, rm, writeFile } from 'node:fs/promises';
import type { CliContext } from '../context.js';
import { CliError, UsageError } from '../errors.js';
import { stripControls } from './safe-text.js';

/** `-o -` is stdout; anything else a path. */
export function toStdout(output: string): boolean {
  return output === '-';
}

/** Refuses binary output on a terminal before any work is done (exit 2). */
export function refuseBinaryOnTerminal(ctx: CliContext, output: string, what: string): void {
  if (toStdout(output) && ctx.stdoutIsTty) {
    throw new UsageError(
      `Refusing to write ${what} to a terminal. Redirect it (-o - > file, or | another-command) or give -o <file>.`,
    );
  }
}

/** Writes `bytes` to the file (atomically) or to stdout. */
export async function writeOutput(
  ctx: CliContext,
  output: string,
  bytes: Uint8Array,
): Promise<void> {
  if (toStdout(output)) {
    ctx.stdout.write(bytes);
    return;
  }
  const temporary = `${output}.${String(process.pid)}.part`;
  try {
    await writeFile(temporary, bytes);
    await rename(temporary, output);
  } catch (error) {
    await rm(temporary, { force: true });
    throw cannotWrite(output, error);
  }
}

/** A file that cannot be written, as a CliError naming it and the reason (ENOENT, EACCES…). */
export function cannotWrite(path: string, error: unknown): CliError {
  const code = (error as NodeJS.ErrnoException).code;
  const reason = code === 'ENOENT' ? 'its directory does not exist' : (code ?? String(error));
  return new CliError(`Could not write ${path}: ${reason}.`);
}

/** Text for stdout: on a terminal each line without escape sequences or control characters. */
export function terminalSafe(ctx: CliContext, text: string): string {
  if (!ctx.stdoutIsTty) return text;
  return text
    .split('\n')
    .map((line) => stripControls(line))
    .join('\n');
}
