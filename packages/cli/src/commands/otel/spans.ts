// `havn otel spans --operation-id ID` (docs/cli.md#query-havn-otel): the outbound calls (dependencies) of one
// operation over a fixed 24 hours, oldest first.
import { UsageError } from '../../errors.js';
import { spansQuery } from '../../kql/queries.js';
import { SPANS_WINDOW } from '../../kql/since.js';
import { parseFormat } from '../../output/format.js';
import { durationCell, shortText, successCell, timeCell, type RowView } from '../../output/view.js';
import { stringOption, type OtelCommandSpec } from './command-spec.js';
import { runOtel } from './run-otel.js';
import { FORMAT_OPTION } from './shared-options.js';
import { TARGET_OPTIONS } from './target.js';
import { successFields } from './traces.js';

export const spansView: RowView = {
  noun: 'spans',
  fields: [
    'timestamp',
    'cloud_RoleName',
    'name',
    'type',
    'target',
    'duration',
    'resultCode',
    'Success',
    'HasError',
    'id',
    'operation_ParentId',
    'operation_Id',
  ],
  columns: [
    { header: 'Time (UTC)', cell: (r) => timeCell(r.timestamp) },
    { header: 'App', cell: (r) => shortText(r.cloud_RoleName) },
    { header: 'Name', cell: (r) => shortText(r.name, 60) },
    { header: 'Type', cell: (r) => shortText(r.type) },
    // A null target is blank in the table.
    { header: 'Target', cell: (r) => shortText(r.target, 40) },
    { header: 'Duration', cell: (r) => durationCell(r.duration), align: 'right' },
    { header: 'Result', cell: (r) => shortText(r.resultCode), align: 'right' },
    { header: 'OK', cell: (r) => successCell(r.success) },
  ],
  json: (r) => ({
    timestamp: r.timestamp ?? null,
    cloud_RoleName: r.cloud_RoleName ?? null,
    name: r.name ?? null,
    type: r.type ?? null,
    // A null target stays null in JSON.
    target: r.target ?? null,
    duration: r.duration ?? null,
    resultCode: r.resultCode ?? null,
    ...successFields(r),
    id: r.id ?? null,
    operation_ParentId: r.operation_ParentId ?? null,
    operation_Id: r.operation_Id ?? null,
  }),
};

export const spansCommand: OtelCommandSpec = {
  name: 'spans',
  description: 'Outbound calls (dependencies) of one operation, oldest first, last 24 hours.',
  options: [
    { flags: '--operation-id <ID>', description: 'the operation (trace) id; required' },
    FORMAT_OPTION,
    ...TARGET_OPTIONS,
  ],
  examples: `
Examples:
  havn otel spans --operation-id 4bf92f3577b34da6a3ce929d0e0e4736
  havn otel spans --operation-id 4bf92f3577b34da6a3ce929d0e0e4736 --format Json`,
  run: (ctx, _app, options) =>
    runOtel(ctx, options, (d) => {
      const operationId = stringOption(options, 'operationId')?.trim() ?? '';
      // Missing or whitespace-only.
      if (operationId === '') throw new UsageError('--operation-id is required for spans');
      return {
        window: SPANS_WINDOW,
        format: parseFormat(stringOption(options, 'format') ?? 'Table'),
        verbose: false,
        view: spansView,
        query: spansQuery(d, { window: SPANS_WINDOW, operationId }),
      };
    }),
};
