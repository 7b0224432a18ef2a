// The Application ID is a GUID (Azure portal: the Application Insights resource, then API Access).
// People often paste the connection string or the instrumentation key instead, which are for
// sending telemetry; docs/cli.md#configure explains the difference.
import { UsageError } from '../errors.js';
import { stripControls } from '../output/safe-text.js';

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const EXAMPLE = '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0';

const WHERE =
  'The query API needs the Application ID: Azure portal > the Application Insights resource > API Access > Application ID.';

export function parseAppId(value: string): string {
  const id = value.trim();
  // A connection string is `Key=value;Key=value`. It is not echoed: it names the resource.
  if (/[=;]/.test(id)) {
    throw new UsageError(
      `--app-id was given a connection string, which is for sending telemetry, not for reading it.\n${WHERE}\nIt is a GUID such as ${EXAMPLE}.`,
    );
  }
  if (!GUID.test(id)) {
    throw new UsageError(
      `--app-id must be a GUID such as ${EXAMPLE}; got '${stripControls(value)}'.\n${WHERE}`,
    );
  }
  return id;
}

/** Whether `id` is a GUID, as every Application ID is. */
export function isAppId(id: string): boolean {
  return GUID.test(id);
}
