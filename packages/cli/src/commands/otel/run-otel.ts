// What every otel command does once its options are read (spec 3 §1, §5, §7): configuration
// first, then the options, then the token, then the query, then the output.
import { accessTokenFor } from '../../auth/access-token.js';
import type { CliContext } from '../../context.js';
import type { TimeWindow } from '../../kql/since.js';
import type { OutputFormat } from '../../output/format.js';
import { renderRows } from '../../output/render-rows.js';
import type { RowView } from '../../output/view.js';
import { runQuery } from '../../upstream/query-client.js';
import type { OptionValues } from './command-spec.js';
import { resolveTarget } from './target.js';

export interface OtelPlan {
  readonly query: string;
  readonly window: TimeWindow;
  readonly format: OutputFormat;
  readonly verbose: boolean;
  readonly view: RowView;
}

export async function runOtel(
  ctx: CliContext,
  options: OptionValues,
  plan: () => OtelPlan,
): Promise<void> {
  // The application ID is checked before anything else (docs/cli.md#errors-and-exit-codes).
  const config = await resolveTarget(ctx, options);
  const p = plan();
  if (p.verbose) {
    const from = new Date(ctx.now() - p.window.ms).toISOString();
    ctx.stderr.write(
      `App ID: ${config.appId}\nWindow: ${p.window.text} (since ${from}, timespan ${p.window.iso})\nQuery:\n${p.query}\n`,
    );
  }
  const accessToken = await accessTokenFor(ctx, config.apiUrl);
  const result = await runQuery(
    {
      apiUrl: config.apiUrl,
      appId: config.appId,
      accessToken,
      query: p.query,
      timespan: p.window.iso,
      verbose: p.verbose,
    },
    ctx,
  );
  if (result.warning !== undefined) {
    ctx.stderr.write(`Warning: the results may be incomplete (${result.warning})\n`);
  }
  if (p.format === 'table' && result.rows.length === 0) {
    ctx.stderr.write(`No ${p.view.noun} in the ${p.window.text}.\n`);
    return;
  }
  ctx.stdout.write(renderRows(p.format, p.view, result.rows, ctx.color));
}
