// The global telemetry configuration (spec 3 §2): application ID, resource name, subscription ID,
// plus the query API's base URL (0-decisions §3), in <configDir>/config.json.
import { join } from 'node:path';
import { CliError } from '../errors.js';
import { readOptionalFile, writeFileAtomic } from './private-file.js';

export const DEFAULT_API_URL = 'https://api.applicationinsights.io';

export interface TelemetryConfig {
  readonly appId: string;
  readonly resourceName?: string;
  readonly subscriptionId?: string;
  readonly apiUrl: string;
}

export function configPath(configDir: string): string {
  return join(configDir, 'config.json');
}

/** The stored configuration, or undefined when no application ID has been configured. */
export async function loadTelemetryConfig(configDir: string): Promise<TelemetryConfig | undefined> {
  const path = configPath(configDir);
  const text = await readOptionalFile(path);
  if (text === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new CliError(`${path} is not valid JSON. Run havn configure telemetry to rewrite it.`);
  }
  const telemetry = isRecord(parsed) ? parsed.telemetry : undefined;
  if (!isRecord(telemetry) || typeof telemetry.appId !== 'string' || telemetry.appId === '') {
    return undefined;
  }
  return {
    appId: telemetry.appId,
    ...optionalString('resourceName', telemetry.resourceName),
    ...optionalString('subscriptionId', telemetry.subscriptionId),
    apiUrl: typeof telemetry.apiUrl === 'string' ? telemetry.apiUrl : DEFAULT_API_URL,
  };
}

export async function saveTelemetryConfig(
  configDir: string,
  config: TelemetryConfig,
): Promise<string> {
  const path = configPath(configDir);
  await writeFileAtomic(path, `${JSON.stringify({ telemetry: config }, null, 2)}\n`, 0o600);
  return path;
}

function optionalString<K extends string>(key: K, value: unknown): Partial<Record<K, string>> {
  return typeof value === 'string' && value !== '' ? ({ [key]: value } as Record<K, string>) : {};
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
