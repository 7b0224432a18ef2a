// `havn otel logs [APP]`: application log entries (the `traces` table), most recent first. Rows
// render, --limit and -v apply (docs/cli.md#behaviour-in-detail).
import { logsQuery } from '../../kql/queries.js';
import { parseSeverity, severityName } from '../../kql/severity.js';
import { OPERATION_ID_WIDTH, pick, shortText, timeCell, type RowView } from '../../output/view.js';
import type { Tint } from '../../output/text.js';
import { runOtel } from './run-otel.js';
import { stringOption, type OtelCommandSpec } from './command-spec.js';
import {
  APP_ARGUMENT,
  LIST_OPTIONS,
  listPlan,
  optionalText,
  parseListSettings,
} from './shared-options.js';

const FIELDS = ['timestamp', 'cloud_RoleName', 'severityLevel', 'message', 'operation_Id'] as const;

function severityCell(value: unknown) {
  // The column is numeric; the coercion has made "2" a number already, so it is never read as a
  // string.
  const level = typeof value === 'number' ? value : null;
  const tint: Tint | undefined =
    level === null ? undefined : level >= 3 ? 'red' : level === 2 ? 'yellow' : undefined;
  return { text: severityName(level), tint };
}

export const logsView: RowView = {
  noun: 'log entries',
  fields: FIELDS,
  columns: [
    { header: 'Time (UTC)', cell: (r) => timeCell(r.timestamp) },
    { header: 'App', cell: (r) => shortText(r.cloud_RoleName) },
    { header: 'Severity', cell: (r) => severityCell(r.severityLevel) },
    // Log messages 70 characters in the table (docs/cli.md#output).
    { header: 'Message', cell: (r) => shortText(r.message, 70) },
    { header: 'Operation', cell: (r) => shortText(r.operation_Id, OPERATION_ID_WIDTH) },
  ],
  json: (r) => pick(r, FIELDS),
};

export const logsCommand: OtelCommandSpec = {
  name: 'logs',
  description: 'Structured log entries (the traces table), most recent first.',
  argument: APP_ARGUMENT,
  options: [
    ...LIST_OPTIONS,
    {
      flags: '--severity <LEVEL>',
      description: 'minimum severity: Trace, Info (Information), Warning, Error, Critical',
    },
    { flags: '--trace-id <ID>', description: 'only entries of this operation (operation_Id)' },
  ],
  examples: `
Examples:
  havn otel logs --severity warning         warnings, errors and critical entries
  havn otel logs worker --since 30m
  havn otel logs --trace-id 4bf92f3577b34da6a3ce929d0e0e4736 --format jsonl
  havn otel logs worker --follow --severity error`,
  run: (ctx, app, options) =>
    runOtel(ctx, options, (d) => {
      const s = parseListSettings(app, options, ctx.now());
      const severity = stringOption(options, 'severity');
      const filters = {
        ...s,
        minSeverity: severity === undefined ? undefined : parseSeverity(severity),
        traceId: optionalText(options, 'traceId', '--trace-id'),
      };
      return listPlan(s, logsView, (mode) => logsQuery(d, filters, mode));
    }),
};
