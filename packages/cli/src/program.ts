// The command table: every command of `havn`, as commander commands. Command modules are small;
// the heavy ones (MSAL, child processes) are imported inside the actions that need them.
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { registerConfigure } from './commands/configure.js';
import { registerLogin } from './commands/login.js';
import { registerLogout } from './commands/logout.js';
import { registerErrors } from './commands/otel/errors.js';
import { registerLogs } from './commands/otel/logs.js';
import { registerSpans } from './commands/otel/spans.js';
import { registerTraces } from './commands/otel/traces.js';
import type { CliContext } from './context.js';

function packageVersion(): string {
  const text = readFileSync(new URL('../package.json', import.meta.url), 'utf8');
  return (JSON.parse(text) as { version: string }).version;
}

export function buildProgram(ctx: CliContext): Command {
  const program = new Command('havn')
    .description('Havn command line: query Application Insights telemetry.')
    .version(packageVersion(), '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({
      writeOut: (s) => ctx.stdout.write(s),
      writeErr: (s) => ctx.stderr.write(s),
    })
    .addHelpText(
      'after',
      `
Getting started:
  havn configure telemetry --app-id <application id>
  havn login
  havn otel errors

Exit codes: 0 success, 1 failure (not configured, not signed in, upstream error), 2 usage error.`,
    );
  registerConfigure(program, ctx);
  registerLogin(program, ctx);
  registerLogout(program, ctx);
  const otel = program
    .command('otel')
    .description('Query Application Insights telemetry (read-only).')
    .addHelpText(
      'after',
      `
Examples:
  havn otel errors --since 6h
  havn otel traces api --has-error
  havn otel logs --severity warning
  havn otel spans --operation-id 4bf92f3577b34da6a3ce929d0e0e4736`,
    );
  registerErrors(otel, ctx);
  registerTraces(otel, ctx);
  registerLogs(otel, ctx);
  registerSpans(otel, ctx);
  return program;
}
