// `havn otel traces [APP]`: recent inbound requests, most recent first.
import { tracesQuery } from '../../kql/queries.js';
import type { Row } from '../../upstream/coerce.js';
import {
  OPERATION_ID_WIDTH,
  durationCell,
  shortText,
  successCell,
  timeCell,
  type RowView,
} from '../../output/view.js';
import { runOtel } from './run-otel.js';
import type { OtelCommandSpec } from './command-spec.js';
import { APP_ARGUMENT, LIST_OPTIONS, listPlan, parseListSettings } from './shared-options.js';

/** JSON carries Success and HasError (its inverse) in PascalCase (docs/cli.md#output). */
export function successFields(row: Row): { Success: boolean | null; HasError: boolean | null } {
  const success = typeof row.success === 'boolean' ? row.success : null;
  return { Success: success, HasError: success === null ? null : !success };
}

export const tracesView: RowView = {
  noun: 'requests',
  fields: [
    'timestamp',
    'cloud_RoleName',
    'name',
    'resultCode',
    'duration',
    'Success',
    'HasError',
    'operation_Id',
  ],
  columns: [
    { header: 'Time (UTC)', cell: (r) => timeCell(r.timestamp) },
    { header: 'App', cell: (r) => shortText(r.cloud_RoleName) },
    { header: 'Name', cell: (r) => shortText(r.name) },
    { header: 'Result', cell: (r) => shortText(r.resultCode), align: 'right' },
    { header: 'Duration', cell: (r) => durationCell(r.duration), align: 'right' },
    { header: 'OK', cell: (r) => successCell(r.success) },
    { header: 'Operation', cell: (r) => shortText(r.operation_Id, OPERATION_ID_WIDTH) },
  ],
  json: (r) => ({
    timestamp: r.timestamp ?? null,
    cloud_RoleName: r.cloud_RoleName ?? null,
    name: r.name ?? null,
    resultCode: r.resultCode ?? null,
    duration: r.duration ?? null,
    ...successFields(r),
    operation_Id: r.operation_Id ?? null,
  }),
};

export const tracesCommand: OtelCommandSpec = {
  name: 'traces',
  description: 'Recent inbound requests with duration, result code and success flag.',
  argument: APP_ARGUMENT,
  options: [
    ...LIST_OPTIONS,
    { flags: '--has-error', description: 'only failed requests (success == false)' },
  ],
  examples: `
Examples:
  havn otel traces                          requests of the last hour
  havn otel traces api --has-error --since 6h
  havn otel traces --format csv --limit 500 > requests.csv
  havn otel traces api -f --has-error --interval 10s`,
  run: (ctx, app, options) =>
    runOtel(ctx, options, (d) => {
      const s = parseListSettings(app, options, ctx.now());
      const hasError = options.hasError === true;
      return listPlan(s, tracesView, (mode) => tracesQuery(d, { ...s, hasError }, mode));
    }),
};
