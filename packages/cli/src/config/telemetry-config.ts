// The telemetry configuration of a profile: which backend is queried (an Application Insights app
// by its Application ID, or a Log Analytics workspace by its Workspace ID; one or the other),
// the resource name and subscription for reference, and the query API's base URL
// (docs/cli.md#configure). Stored as the `telemetry` section of config.json (config-file.ts).
import { CliError } from '../errors.js';
import {
  DEFAULT_PROFILE,
  loadSection,
  optionalString,
  profilesWith,
  saveSection,
} from './config-file.js';

export { DEFAULT_PROFILE, configPath, parseProfileName } from './config-file.js';

/** `app`: POST /v1/apps/<id>/query; `workspace`: POST /v1/workspaces/<id>/query. */
export type TelemetryBackend = 'app' | 'workspace';

// Each cloud's endpoints of both query APIs: a backend's default is its endpoint in the cloud the
// profile already points at, so switching backends never silently leaves Azure China or US
// Government (docs/cli.md#configure).
const CLOUDS: readonly Readonly<Record<TelemetryBackend, string>>[] = [
  { app: 'https://api.applicationinsights.io', workspace: 'https://api.loganalytics.io' },
  {
    app: 'https://api.applicationinsights.azure.cn',
    workspace: 'https://api.loganalytics.azure.cn',
  },
  { app: 'https://api.applicationinsights.us', workspace: 'https://api.loganalytics.us' },
];

export const DEFAULT_API_URL = CLOUDS[0]?.app ?? '';

/** The API URL for `backend`: the same cloud's endpoint as `current`, or the public cloud's. */
export function defaultApiUrl(backend: TelemetryBackend, current?: string): string {
  if (current === undefined) return CLOUDS[0]?.[backend] ?? '';
  const cloud = CLOUDS.find((c) => c.app === current || c.workspace === current);
  // Anything else (a proxy, a test's loopback fake) serves whichever API it serves: kept.
  return cloud ? cloud[backend] : current;
}

export interface TelemetryConfig {
  readonly backend: TelemetryBackend;
  /** The Application ID or the Workspace ID, by backend. */
  readonly id: string;
  readonly resourceName?: string;
  readonly subscriptionId?: string;
  readonly apiUrl: string;
}

export interface Profile {
  readonly name: string;
  readonly telemetry: TelemetryConfig;
}

/** The profile's configuration, or undefined when it has neither ID. */
export async function loadTelemetryConfig(
  configDir: string,
  profile: string = DEFAULT_PROFILE,
): Promise<TelemetryConfig | undefined> {
  return telemetryOf(await loadSection(configDir, profile, 'telemetry'), profile);
}

/** Every profile with a telemetry configuration, `default` first, then by name. */
export async function listProfiles(configDir: string): Promise<Profile[]> {
  const found = await profilesWith(configDir, 'telemetry');
  return found.flatMap(({ name, section }) => {
    const telemetry = telemetryOf(section, name);
    return telemetry ? [{ name, telemetry }] : [];
  });
}

export async function saveTelemetryConfig(
  configDir: string,
  profile: string,
  config: TelemetryConfig,
): Promise<string> {
  // One ID or the other, never both: the file says which backend is queried.
  return saveSection(configDir, profile, 'telemetry', {
    [config.backend === 'app' ? 'appId' : 'workspaceId']: config.id,
    ...optionalString('resourceName', config.resourceName),
    ...optionalString('subscriptionId', config.subscriptionId),
    apiUrl: config.apiUrl,
  });
}

function telemetryOf(
  section: Record<string, unknown> | undefined,
  profile: string,
): TelemetryConfig | undefined {
  if (!section) return undefined;
  const appId = typeof section.appId === 'string' ? section.appId : '';
  const workspaceId = typeof section.workspaceId === 'string' ? section.workspaceId : '';
  if (appId !== '' && workspaceId !== '') {
    // Only a hand edit gets here; guessing which one was meant would query the wrong data.
    const select = profile === DEFAULT_PROFILE ? '' : ` --profile ${profile}`;
    throw new CliError(
      `The telemetry configuration holds both an appId and a workspaceId.\nRun havn configure telemetry${select} --workspace-id <workspace-id> (or --app-id <application-id>) to keep one.`,
    );
  }
  if (appId === '' && workspaceId === '') return undefined;
  const backend: TelemetryBackend = workspaceId === '' ? 'app' : 'workspace';
  return {
    backend,
    id: backend === 'app' ? appId : workspaceId,
    ...optionalString('resourceName', section.resourceName),
    ...optionalString('subscriptionId', section.subscriptionId),
    apiUrl: typeof section.apiUrl === 'string' ? section.apiUrl : defaultApiUrl(backend),
  };
}
