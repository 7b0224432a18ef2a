#!/usr/bin/env node
// The havn entry point: reads the environment (once), runs the command table, and is the one
// top-level catch that maps every error to an exit code (docs/cli.md#errors-and-exit-codes): 0 success, 1 runtime
// failure, 2 usage error. Never a stack trace.
import { readEnvironment } from './config/environment.js';
import type { CliContext } from './context.js';
import { CliError } from './errors.js';
import { tryCachedHelp, tryFastPath } from './fast-path.js';

const environment = readEnvironment(process.env, process.stdout.isTTY);
let interrupt: AbortController | undefined;
const ctx: CliContext = {
  ...environment,
  stdout: process.stdout,
  stdoutStream: process.stdout,
  // Undefined, not false, for a pipe: only ever tested for truth.
  stdoutIsTty: process.stdout.isTTY,
  stderrIsTty: process.stderr.isTTY,
  // A terminal that reports no size (0) counts as none.
  columns: process.stdout.isTTY && process.stdout.columns > 0 ? process.stdout.columns : undefined,
  stderr: process.stderr,
  stdin: () => process.stdin,
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  interrupted: () => {
    if (!interrupt) {
      const controller = new AbortController();
      // Once: a second Ctrl-C, while the first is being honoured, ends the process the usual way.
      process.once('SIGINT', () => {
        controller.abort();
      });
      interrupt = controller;
    }
    return interrupt.signal;
  },
};

// A closed pipe (`havn otel logs | head`) is not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
});

process.exitCode = await run();

async function run(): Promise<number> {
  const argv = process.argv.slice(2);
  try {
    if (tryCachedHelp(argv, ctx) || (await tryFastPath(argv, ctx))) return 0;
    // Everything else (help, configure, login, unusual input) goes through commander, loaded only now.
    const { buildProgram } = await import('./program.js');
    await buildProgram(ctx).parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    // commander's own errors, without importing commander for an instanceof check.
    if (isCommanderError(error)) {
      // commander has printed its own message (or the help / version) already.
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return 0;
      return 2;
    }
    if (error instanceof CliError) {
      ctx.stderr.write(`${error.message}\n`);
      return error.exitCode;
    }
    const reason = error instanceof Error ? error.message : String(error);
    ctx.stderr.write(`havn: unexpected failure: ${reason}\n`);
    return 1;
  }
}

function isCommanderError(error: unknown): error is Error & { code: string } {
  const code: unknown = error instanceof Error ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' && code.startsWith('commander.');
}
