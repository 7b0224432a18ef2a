// What every otel command does once its options are read: configuration first, then the options,
// then the token, then the query, then the output (docs/cli.md#errors-and-exit-codes).
import { accessTokenFor } from '../../auth/access-token.js';
import type { CliContext } from '../../context.js';
import { dialectOf, type Dialect } from '../../kql/dialect.js';
import { windowBounds, type TimeWindow } from '../../kql/since.js';
import type { OutputFormat } from '../../output/format.js';
import { renderRows } from '../../output/render-rows.js';
import type { RowView } from '../../output/view.js';
import type { Column } from '../../upstream/coerce.js';
import { queryUrl, runQuery, type QueryResult } from '../../upstream/query-client.js';
import type { OptionValues } from './command-spec.js';
import { followOn, type Follow } from './follow.js';
import { resolveTarget, type Target } from './target.js';

export interface QueryPlan {
  readonly query: string;
  readonly window: TimeWindow;
  readonly format: OutputFormat;
  readonly verbose: boolean;
  /** The row cap the query applies (--limit); reaching it earns a warning. */
  readonly limit?: number;
}

export interface OtelPlan extends QueryPlan {
  /** What to show of a row; a function of the result's columns when the user chose them. */
  readonly view: RowView | ((columns: readonly Column[]) => RowView);
  /** With --follow: how to poll after the first query (docs/cli.md#follow). */
  readonly follow?: Follow;
}

/** The query API returns at most this many rows. */
const API_ROW_LIMIT = 500_000;

export async function runOtel(
  ctx: CliContext,
  options: OptionValues,
  plan: (d: Dialect) => OtelPlan | Promise<OtelPlan>,
): Promise<void> {
  // Ctrl-C ends --follow with exit 0, even during its first query.
  if (options.follow === true) ctx.interrupted();
  const { plan: p, target, result } = await queryOtel(ctx, options, plan);
  const view = typeof p.view === 'function' ? p.view(result.columns) : p.view;
  if (p.follow) {
    await followOn(ctx, { ...p, view, follow: p.follow }, target, result);
    return;
  }
  if (p.format === 'table' && result.rows.length === 0) {
    ctx.stderr.write(`No ${view.noun} in the ${p.window.text}.\n`);
    return;
  }
  ctx.stdout.write(renderRows(p.format, view, result.rows, ctx.color));
}

/** Everything up to the rows: the checks in order, -v, the query, and the warnings on stderr. */
export async function queryOtel<P extends QueryPlan>(
  ctx: CliContext,
  options: OptionValues,
  plan: (d: Dialect) => P | Promise<P>,
): Promise<{ plan: P; target: Target; result: QueryResult }> {
  // The telemetry ID is checked before anything else.
  const target = await resolveTarget(ctx, options);
  const p = await plan(dialectOf(target.backend));
  if (p.verbose) {
    const { from, to } = windowBounds(p.window, ctx.now());
    const which = target.profile === 'default' ? '' : ` (profile ${target.profile})`;
    const [id, api] =
      target.backend === 'app'
        ? ['App ID', 'Application Insights app (classic tables)']
        : ['Workspace ID', 'Log Analytics workspace (App* tables)'];
    ctx.stderr.write(
      `${id}: ${target.id}${which}\nBackend: ${api}, POST ${queryUrl(target).href}\nWindow: ${from} to ${to} (${p.window.text}, timespan ${p.window.iso})\nQuery:\n${p.query}\n`,
    );
  }
  const accessToken = await accessTokenFor(ctx, target.apiUrl);
  const result = await runQuery(
    {
      target,
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
  return { plan: p, target, result };
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
