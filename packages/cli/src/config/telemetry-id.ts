// The telemetry IDs are GUIDs. The Application ID: Azure portal, the Application Insights
// resource, then API Access. The Workspace ID: the Log Analytics workspace, then Overview. People
// often paste the connection string or the instrumentation key instead (for sending telemetry),
// or the workspace's resource ID; docs/cli.md#configure explains the difference.
import { UsageError } from '../errors.js';
import { stripControls } from '../output/safe-text.js';
import type { TelemetryBackend } from './telemetry-config.js';

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const EXAMPLE = '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0';

const ID: Record<TelemetryBackend, { option: string; where: string }> = {
  app: {
    option: '--app-id',
    where:
      'The query API needs the Application ID: Azure portal > the Application Insights resource > API Access > Application ID.',
  },
  workspace: {
    option: '--workspace-id',
    where:
      'The query API needs the Workspace ID: Azure portal > the Log Analytics workspace > Overview > Workspace ID (not its resource ID).',
  },
};

/** The ID of `backend` as typed, or a usage error (exit 2) explaining where the right one is. */
export function parseTelemetryId(value: string, backend: TelemetryBackend): string {
  const id = value.trim();
  const { option, where } = ID[backend];
  // A connection string is `Key=value;Key=value`. It is not echoed: it names the resource.
  if (/[=;]/.test(id)) {
    throw new UsageError(
      `${option} was given a connection string, which is for sending telemetry, not for reading it.\n${where}\nIt is a GUID such as ${EXAMPLE}.`,
    );
  }
  if (!GUID.test(id)) {
    throw new UsageError(
      `${option} must be a GUID such as ${EXAMPLE}; got '${stripControls(value)}'.\n${where}`,
    );
  }
  return id;
}

/** Whether `id` is a GUID, as every Application ID and Workspace ID is. */
export function isTelemetryId(id: string): boolean {
  return GUID.test(id);
}
