// `havn otel query '<KQL>'` / `--file query.kql`: a query of your own, as `az monitor app-insights
// query` runs, with `--param name=value` bound as KQL `let` statements
// (docs/cli.md#raw-kql-havn-otel-query).
import { readFile } from 'node:fs/promises';
import type { CliContext } from '../../context.js';
import { UsageError } from '../../errors.js';
import { letStatements } from '../../kql/parameters.js';
import { parseFormat } from '../../output/format.js';
import { resultView } from '../../output/result-view.js';
import { listOption, stringOption, type OtelCommandSpec } from './command-spec.js';
import { runOtel } from './run-otel.js';
import { FORMAT_OPTION, windowOf, windowOptions } from './shared-options.js';
import { TARGET_OPTIONS } from './target.js';

export const queryCommand: OtelCommandSpec = {
  name: 'query',
  description: 'Run a KQL query of your own and print its rows.',
  argument: { name: '[KQL]', description: 'the query (or --file)' },
  options: [
    { flags: '--file <PATH>', description: "read the query from a file ('-': standard input)" },
    {
      flags: '--param <NAME=VALUE>',
      description: "bind a string: adds `let NAME = 'VALUE';` before the query (repeatable)",
      repeatable: true,
    },
    ...windowOptions('1h'),
    FORMAT_OPTION,
    {
      flags: '-v, --verbose',
      description: 'print the backend, its ID, the time window and the query',
    },
    ...TARGET_OPTIONS,
  ],
  examples: `
Examples:
  havn otel query 'requests | summarize count() by resultCode'
  havn otel query 'exceptions | where cloud_RoleName == app | take 10' --param app=checkout
  havn otel query --file slow-requests.kql --since 7d --format csv > slow.csv

The window (--since, default 1h, or --from/--to) is sent as the request's timespan; a time
filter inside the query applies as well.`,
  run: (ctx, kql, options) =>
    runOtel(ctx, options, async () => {
      const text = await queryText(ctx, kql, stringOption(options, 'file'));
      const lets = letStatements(listOption(options, 'param'));
      return {
        window: windowOf(options, ctx.now(), '1h'),
        format: parseFormat(stringOption(options, 'format') ?? 'Table'),
        verbose: options.verbose === true,
        view: resultView,
        query: [...lets, text].join('\n'),
      };
    }),
};

async function queryText(
  ctx: CliContext,
  kql: string | undefined,
  file: string | undefined,
): Promise<string> {
  if (kql !== undefined && file !== undefined) {
    throw new UsageError('Give the query as an argument or with --file, not both.');
  }
  let text = kql;
  if (file !== undefined) {
    try {
      text = file === '-' ? await readAll(ctx.stdin()) : await readFile(file, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? String(error);
      throw new UsageError(`Cannot read --file ${file} (${code}).`);
    }
  }
  if (text === undefined) {
    throw new UsageError("Give a KQL query, e.g. havn otel query 'requests | take 10', or --file.");
  }
  if (text.trim() === '') throw new UsageError('The query is empty.');
  return text.trim();
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) {
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
