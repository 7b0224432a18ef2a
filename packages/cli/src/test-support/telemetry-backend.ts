// Which telemetry backend a test file runs against: vitest runs every otel test twice, in the
// projects otel-app and otel-workspace (vitest.config.ts), which set HAVN_TEST_TELEMETRY. The
// names below are what each backend calls the same data, written out here on their own (not
// taken from the CLI's dialect.ts) so that a test states what it expects.
import type { Backend } from './telemetry-schema.js';

export type { Backend } from './telemetry-schema.js';

export const TEST_BACKEND: Backend =
  process.env.HAVN_TEST_TELEMETRY === 'workspace' ? 'workspace' : 'app';

/** The Workspace ID the signed-in workspace configurations use. */
export const TEST_WORKSPACE_ID = '7e5d4c3b-2a19-4807-96f5-e4d3c2b1a098';

const WORKSPACE_NAMES: Readonly<Record<string, string>> = {
  exceptions: 'AppExceptions',
  requests: 'AppRequests',
  traces: 'AppTraces',
  dependencies: 'AppDependencies',
  timestamp: 'TimeGenerated',
  cloud_RoleName: 'AppRoleName',
  operation_Id: 'OperationId',
  success: 'Success',
  severityLevel: 'SeverityLevel',
  duration: 'DurationMs',
  resultCode: 'ResultCode',
};

/** What `backend` calls the classic table or column `name`. */
export function nameOn(backend: Backend, name: string): string {
  if (backend === 'app') return name;
  const named = WORKSPACE_NAMES[name];
  if (named === undefined) throw new Error(`no workspace name for ${name} in the test table`);
  return named;
}

/** How a backend's -v output, URLs and messages name it. */
export function backendFacts(backend: Backend, appId: string) {
  return backend === 'app'
    ? {
        id: appId,
        idLine: `App ID: ${appId}`,
        queryPath: (id = appId) => `/v1/apps/${id}/query`,
        service: 'Application Insights',
        configure: ['--app-id', appId],
      }
    : {
        id: TEST_WORKSPACE_ID,
        idLine: `Workspace ID: ${TEST_WORKSPACE_ID}`,
        queryPath: (id = TEST_WORKSPACE_ID) => `/v1/workspaces/${id}/query`,
        service: 'Log Analytics',
        configure: ['--workspace-id', TEST_WORKSPACE_ID],
      };
}
