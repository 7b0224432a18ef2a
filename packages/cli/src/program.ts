// The command table: every command of `havn`, as commander commands (help, usage errors, and
// everything fast-path.ts leaves to it). MSAL and child processes are imported only inside the
// actions that need them.
import { Command } from 'commander';
import { registerCompletion } from './commands/completion.js';
import { registerConfigure } from './commands/configure.js';
import { registerForms } from './commands/forms/index.js';
import { registerLogin } from './commands/login.js';
import { registerLogout } from './commands/logout.js';
import type { OptionValues } from './commands/otel/command-spec.js';
import { OTEL_COMMANDS } from './commands/otel/index.js';
import { registerRender } from './commands/render/index.js';
import type { CliContext } from './context.js';
import { packageVersion } from './version.js';

const HELP_WIDTH = 80;

export function buildProgram(ctx: CliContext): Command {
  const program = new Command('havn')
    .description('Havn command line: render pages, read forms, query telemetry.')
    .version(packageVersion(), '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({
      writeOut: (s) => ctx.stdout.write(s),
      writeErr: (s) => ctx.stderr.write(s),
      // One width everywhere, so the help build.mjs renders ahead (help-texts.ts) is what
      // commander would print on any terminal.
      getOutHelpWidth: () => HELP_WIDTH,
      getErrHelpWidth: () => HELP_WIDTH,
    })
    .addHelpText(
      'after',
      `
Getting started:
  havn configure render --url https://render.example.com --with-token < token.txt
  havn render shot https://example.com -o example.png
  havn configure forms --url https://forms.example.com --with-token < token.txt
  havn forms list
  havn configure telemetry --workspace-id <workspace id> && havn login
  havn otel errors

Environment: HAVN_PROFILE, HAVN_CONFIG_DIR, HAVN_RENDER_TOKEN, HAVN_FORMS_TOKEN, NO_COLOR.
Exit codes: 0 success, 1 failure (not configured, not signed in, service error), 2 usage error.`,
    );
  registerConfigure(program, ctx);
  registerLogin(program, ctx);
  registerLogout(program, ctx);
  const otel = program
    .command('otel')
    .description('Query Application Insights telemetry (read-only).')
    // No implicit `help` subcommand: `havn otel help` is not a query (docs/cli.md).
    .helpCommand(false)
    .addHelpText(
      'after',
      `
Examples:
  havn otel errors --since 6h
  havn otel traces api --has-error
  havn otel logs --severity warning
  havn otel spans --operation-id 4bf92f3577b34da6a3ce929d0e0e4736
  havn otel trace 4bf92f3577b34da6a3ce929d0e0e4736
  havn otel query 'requests | summarize count() by resultCode'`,
    );
  for (const spec of OTEL_COMMANDS) {
    const command = otel.command(spec.name).description(spec.description);
    if (spec.argument) command.argument(spec.argument.name, spec.argument.description);
    for (const option of spec.options) {
      if (option.repeatable === true) {
        command.option(option.flags, option.description, (value: string, list?: string[]) => [
          ...(list ?? []),
          value,
        ]);
      } else {
        command.option(option.flags, option.description, option.default);
      }
    }
    command.addHelpText('after', spec.examples);
    command.action(async (...args: unknown[]) => {
      // commander passes the positional (when declared) first, then the options.
      const app = spec.argument ? (args[0] as string | undefined) : undefined;
      const options = (spec.argument ? args[1] : args[0]) as OptionValues;
      await spec.run(ctx, app, options);
    });
  }
  registerRender(program, ctx);
  registerForms(program, ctx);
  registerCompletion(program, ctx);
  return program;
}
