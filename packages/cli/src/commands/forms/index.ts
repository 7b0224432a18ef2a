// The `havn forms` group: its commands, options and help (docs/cli.md#havn-forms). Each action
// imports its implementation only when it runs, so `havn forms --help` loads none of them.
import type { Command } from 'commander';
import type { CliContext } from '../../context.js';
// Types only: erased from the build, so the modules load when their command runs.
import type { PutOptions } from './definition.js';
import type { ExportOptions } from './export.js';
import type { FormsOptions } from './forms-api.js';
import type { ListOptions } from './list.js';
import type { SubmissionsOptions } from './submissions.js';
import type { WebhookTestOptions } from './webhooks.js';

const FORMAT = ['--format <FORMAT>', 'Table, Json, Jsonl, Csv or Tsv', 'Table'] as const;

/** --url, --profile and --org, on every forms command. */
function target(command: Command): Command {
  return command
    .option(
      '--url <URL>',
      "the forms server (default: the profile's; the token then comes from HAVN_FORMS_TOKEN)",
    )
    .option('--profile <NAME>', 'the configuration profile (default: HAVN_PROFILE, else default)')
    .option('--org <SLUG>', "the organisation (default: the token's own)");
}

export function registerForms(program: Command, ctx: CliContext): void {
  const forms = program
    .command('forms')
    .description('Read and manage forms on a Havn forms server.')
    .helpCommand(false)
    .addHelpText(
      'after',
      `
Examples:
  havn configure forms --url https://forms.example.com --with-token < token.txt
  havn forms list
  havn forms submissions contact --follow
  havn forms export contact --format csv -o contact.csv
  havn forms definition put contact contact.json
  havn forms webhooks test contact`,
    );

  target(forms.command('list').description("List the organisation's forms with their counts."))
    .option(...FORMAT)
    .addHelpText(
      'after',
      "\nExamples:\n  havn forms list\n  havn forms list --format json | jq -r '.[].id'",
    )
    .action(async (options: ListOptions) => {
      const { listForms } = await import('./list.js');
      await listForms(ctx, options);
    });

  target(
    forms
      .command('submissions')
      .description('The latest submissions to a form; --follow prints new ones as they arrive.')
      .argument('<form>', 'the form id'),
  )
    .option('-f, --follow', 'keep printing new submissions until Ctrl-C')
    .option('--interval <DURATION>', 'with --follow: how often to poll (default 2s)')
    .option('--unread', 'only submissions not marked read')
    .option('--limit <COUNT>', 'how many of the latest to print, 1 to 500', '20')
    .option(...FORMAT)
    .addHelpText(
      'after',
      `
Examples:
  havn forms submissions contact
  havn forms submissions contact --unread --limit 100
  havn forms submissions contact --follow
  havn forms submissions contact -f --format jsonl | jq -r .preview`,
    )
    .action(async (form: string, options: SubmissionsOptions) => {
      const { listSubmissions } = await import('./submissions.js');
      await listSubmissions(ctx, form, options);
    });

  target(
    forms
      .command('export')
      .description("Export every submission of a form, byte for byte as the server's export.")
      .argument('<form>', 'the form id'),
  )
    .option('--format <FORMAT>', 'csv or json', 'csv')
    .option('-o, --output <FILE>', 'the file to write, - for standard output', '-')
    .option('--since <DATE>', 'only submissions received at or after (ISO 8601 date or date-time)')
    .option('--until <DATE>', 'only submissions received before (ISO 8601 date or date-time)')
    .addHelpText(
      'after',
      `
Examples:
  havn forms export contact --format csv -o contact.csv
  havn forms export contact --format json --since 2026-01-01 --until 2026-02-01 -o january.json`,
    )
    .action(async (form: string, options: ExportOptions) => {
      const { exportSubmissions } = await import('./export.js');
      await exportSubmissions(ctx, form, options);
    });

  const definition = forms
    .command('definition')
    .description("Read or replace a form's definition (docs/definition-format.md).")
    .helpCommand(false)
    .addHelpText(
      'after',
      '\nExamples:\n  havn forms definition get contact contact.json\n  havn forms definition put contact contact.json',
    );
  target(
    definition
      .command('get')
      .description(
        "Write the form's current definition as JSON (to standard output without [file]).",
      )
      .argument('<form>', 'the form id')
      .argument('[file]', 'where to write it; - or none for standard output'),
  )
    .addHelpText(
      'after',
      '\nExamples:\n  havn forms definition get contact\n  havn forms definition get contact contact.json',
    )
    .action(async (form: string, file: string | undefined, options: FormsOptions) => {
      const { getDefinition } = await import('./definition.js');
      await getDefinition(ctx, form, file, options);
    });
  target(
    definition
      .command('put')
      .description(
        "Validate a definition against the server's JSON Schema, then save it as the form's next version.",
      )
      .argument('<form>', 'the form id')
      .argument('[file]', 'the definition (JSON); - or none for standard input'),
  )
    .option('--dry-run', 'validate only; send nothing')
    .addHelpText(
      'after',
      `
Examples:
  havn forms definition put contact contact.json
  havn forms definition put contact contact.json --dry-run
  jq '.questions[0].required = true' contact.json | havn forms definition put contact`,
    )
    .action(async (form: string, file: string | undefined, options: PutOptions) => {
      const { putDefinition } = await import('./definition.js');
      await putDefinition(ctx, form, file, options);
    });

  const webhooks = forms
    .command('webhooks')
    .description("Work with a form's webhooks.")
    .helpCommand(false)
    .addHelpText('after', '\nExample:\n  havn forms webhooks test contact');
  target(
    webhooks
      .command('test')
      .description(
        'Send a signed test delivery to each webhook of the form and show what each answered.',
      )
      .argument('<form>', 'the form id'),
  )
    .option('--webhook <URL>', "test only this webhook (one of the form's)")
    .option(...FORMAT)
    .addHelpText(
      'after',
      `
Examples:
  havn forms webhooks test contact
  havn forms webhooks test contact --webhook https://crm.example.com/hooks/havn

Exit code 1 when a receiver did not accept its test delivery.`,
    )
    .action(async (form: string, options: WebhookTestOptions) => {
      const { testWebhooks } = await import('./webhooks.js');
      await testWebhooks(ctx, form, options);
    });
}
