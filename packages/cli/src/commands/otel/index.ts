// The otel group's commands, in the order help lists them (docs/cli.md#query-havn-otel).
import type { OtelCommandSpec } from './command-spec.js';
import { errorsCommand } from './errors.js';
import { logsCommand } from './logs.js';
import { queryCommand } from './query.js';
import { traceCommand } from './trace.js';
import { spansCommand } from './spans.js';
import { tracesCommand } from './traces.js';

export const OTEL_COMMANDS: readonly OtelCommandSpec[] = [
  errorsCommand,
  tracesCommand,
  logsCommand,
  spansCommand,
  traceCommand,
  queryCommand,
];
