// The otel group's commands, in the order help lists them (spec 3 §1).
import type { OtelCommandSpec } from './command-spec.js';
import { errorsCommand } from './errors.js';
import { logsCommand } from './logs.js';
import { spansCommand } from './spans.js';
import { tracesCommand } from './traces.js';

export const OTEL_COMMANDS: readonly OtelCommandSpec[] = [
  errorsCommand,
  tracesCommand,
  logsCommand,
  spansCommand,
];
