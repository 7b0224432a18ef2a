// What every otel command does once its options are read (spec 3 §1, §5, §7): configuration
// first, then the options, then the token, then the query, then the output.
import { accessTokenFor } from '../../auth/access-token.js';
import type { CliContext } from '../../context.js';
import { windowBounds, type TimeWindow } from '../../kql/since.js';
import type { OutputFormat } from '../../output/format.js';
import { renderRows } from '../../output/render-rows.js';
import type { RowView } from '../../output/view.js';
import type { Column } from '../../upstream/coerce.js';
import { runQuery } from '../../upstream/query-client.js';
import type { OptionValues } from './command-spec.js';
import { resolveTarget } from './target.js';

export interface OtelPlan {
  readonly query: string;
  readonly window: TimeWindow;
  readonly format: OutputFormat;
  readonly verbose: boolean;
  /** What to show of a row; a function of the result's columns when the user chose them. */
  readonly view: RowView | ((columns: readonly Column[]) => RowView);
  /** The row cap the query applies (--limit); reaching it earns a warning. */
  readonly limit?: number;
}

/** The query API returns at most this many rows. */
const API_ROW_LIMIT = 500_000;

export async function runOtel(
  ctx: CliContext,
  options: OptionValues,
  plan: () => OtelPlan | Promise<OtelPlan>,
): Promise<void> {
  // The application ID is checked before anything else (docs/cli.md#errors-and-exit-codes).
  const config = await resolveTarget(ctx, options);
  const p = await plan();
  if (p.verbose) {
    const { from, to } = windowBounds(p.window, ctx.now());
    const which = config.profile === 'default' ? '' : ` (profile ${config.profile})`;
    ctx.stderr.write(
      `App ID: ${config.appId}${which}\nWindow: ${from} to ${to} (${p.window.text}, timespan ${p.window.iso})\nQuery:\n${p.query}\n`,
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
  warnIfCut(ctx, result.rows.length, p.limit);
  const view = typeof p.view === 'function' ? p.view(result.columns) : p.view;
  if (p.format === 'table' && result.rows.length === 0) {
    ctx.stderr.write(`No ${view.noun} in the ${p.window.text}.\n`);
    return;
  }
  ctx.stdout.write(renderRows(p.format, view, result.rows, ctx.color));
}

/** A result as long as its cap may have been cut: say so on stderr (docs/cli.md#time-windows). */
export function warnIfCut(ctx: CliContext, rows: number, limit: number | undefined): void {
  if (limit !== undefined && rows >= limit) {
    ctx.stderr.write(
      `Warning: ${String(rows)} rows, the --limit: older rows may have been left out. Raise --limit or narrow the window.\n`,
    );
  } else if (rows >= API_ROW_LIMIT) {
    ctx.stderr.write(
      `Warning: ${String(rows)} rows, the query API's row limit: the result may be cut. Narrow the window or summarize.\n`,
    );
  }
}
