// `havn otel trace <operation-id>`: one distributed trace, its requests, dependencies, exceptions
// and log entries as a tree with a waterfall (docs/cli.md#one-trace-havn-otel-trace).
import { UsageError } from '../../errors.js';
import { traceQuery } from '../../kql/queries.js';
import { parseFormat } from '../../output/format.js';
import { jsonText } from '../../output/json-text.js';
import { renderRows } from '../../output/render-rows.js';
import { traceJson, traceRowView, traceRows, TRACE_FIELDS } from '../../trace/trace-json.js';
import { buildTraceTree } from '../../trace/trace-tree.js';
import { DEFAULT_WIDTH, renderWaterfall } from '../../trace/waterfall.js';
import { stringOption, type OtelCommandSpec } from './command-spec.js';
import { queryOtel } from './run-otel.js';
import { FORMAT_OPTION, windowOf, windowOptions } from './shared-options.js';
import { TARGET_OPTIONS } from './target.js';

/** More items than a terminal can show; the cap keeps a runaway operation from flooding it. */
export const TRACE_ITEM_CAP = 10_000;

export const traceCommand: OtelCommandSpec = {
  name: 'trace',
  description: 'One distributed trace as a tree with a waterfall, errors and the critical path.',
  argument: { name: '<operation-id>', description: 'the operation (trace) id' },
  options: [
    ...windowOptions('24h'),
    FORMAT_OPTION,
    {
      flags: '-v, --verbose',
      description: 'print the backend, its ID, the time window and the query',
    },
    ...TARGET_OPTIONS,
  ],
  examples: `
Examples:
  havn otel trace 4bf92f3577b34da6a3ce929d0e0e4736
  havn otel trace 4bf92f3577b34da6a3ce929d0e0e4736 --since 7d
  havn otel trace 4bf92f3577b34da6a3ce929d0e0e4736 --format Json | jq '.roots[0].children'`,
  run: async (ctx, operation, options) => {
    const { plan, result } = await queryOtel(ctx, options, (d) => {
      const operationId = operation?.trim() ?? '';
      if (operationId === '') throw new UsageError('<operation-id> must not be empty.');
      const window = windowOf(options, ctx.now(), '24h');
      return {
        operationId,
        window,
        format: parseFormat(stringOption(options, 'format') ?? 'Table'),
        verbose: options.verbose === true,
        query: traceQuery(d, { window, operationId, fields: TRACE_FIELDS, cap: TRACE_ITEM_CAP }),
      };
    });
    if (result.rows.length >= TRACE_ITEM_CAP) {
      ctx.stderr.write(
        `Warning: ${String(result.rows.length)} items, the trace view's cap: later items were left out.\n`,
      );
    }
    const tree = buildTraceTree(plan.operationId, result.rows);
    if (plan.format === 'json') {
      ctx.stdout.write(`${jsonText(traceJson(tree))}\n`);
    } else if (plan.format !== 'table') {
      ctx.stdout.write(renderRows(plan.format, traceRowView, traceRows(tree), ctx.color));
    } else if (tree.count === 0) {
      ctx.stderr.write(
        `No telemetry for operation ${plan.operationId} in the ${plan.window.text}.\n`,
      );
    } else {
      ctx.stdout.write(renderWaterfall(tree, ctx.columns ?? DEFAULT_WIDTH, ctx.color));
    }
  },
};
