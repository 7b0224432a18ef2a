// `havn otel errors [APP]`: recent exceptions, most recent first.
import { errorsQuery } from '../../kql/queries.js';
import { OPERATION_ID_WIDTH, pick, shortText, timeCell, type RowView } from '../../output/view.js';
import { runOtel } from './run-otel.js';
import type { OtelCommandSpec } from './command-spec.js';
import {
  APP_ARGUMENT,
  LIST_OPTIONS,
  listPlan,
  optionalText,
  parseListSettings,
} from './shared-options.js';

const FIELDS = ['timestamp', 'cloud_RoleName', 'type', 'message', 'operation_Id'] as const;

export const errorsView: RowView = {
  noun: 'exceptions',
  fields: FIELDS,
  columns: [
    { header: 'Time (UTC)', cell: (r) => timeCell(r.timestamp) },
    { header: 'App', cell: (r) => shortText(r.cloud_RoleName) },
    { header: 'Type', cell: (r) => shortText(r.type) },
    // Exception messages 60 characters, operation ids 16 in the table (docs/cli.md#output).
    { header: 'Message', cell: (r) => shortText(r.message, 60) },
    { header: 'Operation', cell: (r) => shortText(r.operation_Id, OPERATION_ID_WIDTH) },
  ],
  json: (r) => pick(r, FIELDS),
};

export const errorsCommand: OtelCommandSpec = {
  name: 'errors',
  description: 'Recent exceptions, most recent first.',
  argument: APP_ARGUMENT,
  options: [
    ...LIST_OPTIONS,
    {
      flags: '--operation-id <ID>',
      description: 'only exceptions of this operation (operation_Id)',
    },
  ],
  examples: `
Examples:
  havn otel errors                         exceptions of the last hour
  havn otel errors checkout --since 1d     one app (cloud_RoleName), last day
  havn otel errors --operation-id 4bf92f3577b34da6a3ce929d0e0e4736
  havn otel errors --format Json | jq '.[].message'
  havn otel errors --follow                  new exceptions as they arrive, until Ctrl-C
  havn otel errors --from 2026-11-21T09:00Z --to 2026-11-21T10:30Z --profile staging`,
  run: (ctx, app, options) =>
    runOtel(ctx, options, (d) => {
      const s = parseListSettings(app, options, ctx.now());
      const operationId = optionalText(options, 'operationId', '--operation-id');
      return listPlan(s, errorsView, (mode) => errorsQuery(d, { ...s, operationId }, mode));
    }),
};
