// The telemetry configuration: application ID, resource name, subscription ID and the query API's
// base URL, in <configDir>/config.json. The top-level `telemetry` is the `default` profile; named
// profiles sit under `profiles.<name>.telemetry` (docs/cli.md#profiles). Writing one profile keeps
// every other one.
import { join } from 'node:path';
import { CliError, UsageError } from '../errors.js';
import { isRecord } from '../upstream/coerce.js';
import { readOptionalFile, writeFileAtomic } from './private-file.js';

export const DEFAULT_API_URL = 'https://api.applicationinsights.io';
export const DEFAULT_PROFILE = 'default';

export interface TelemetryConfig {
  readonly appId: string;
  readonly resourceName?: string;
  readonly subscriptionId?: string;
  readonly apiUrl: string;
}

export interface Profile {
  readonly name: string;
  readonly telemetry: TelemetryConfig;
}

export function configPath(configDir: string): string {
  return join(configDir, 'config.json');
}

const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** A profile name as typed, or a usage error naming the rule. */
export function parseProfileName(name: string): string {
  if (!PROFILE_NAME.test(name)) {
    throw new UsageError(
      `--profile must be 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit; got '${name}'.`,
    );
  }
  return name;
}

/** The profile's configuration, or undefined when it has no application ID. */
export async function loadTelemetryConfig(
  configDir: string,
  profile: string = DEFAULT_PROFILE,
): Promise<TelemetryConfig | undefined> {
  return telemetryOf(profileSection(await readConfigFile(configDir), profile));
}

/** Every configured profile, `default` first, then by name. */
export async function listProfiles(configDir: string): Promise<Profile[]> {
  const file = await readConfigFile(configDir);
  const names = isRecord(file.profiles) ? Object.keys(file.profiles).sort() : [];
  const out: Profile[] = [];
  for (const name of [DEFAULT_PROFILE, ...names.filter((n) => n !== DEFAULT_PROFILE)]) {
    const telemetry = telemetryOf(profileSection(file, name));
    if (telemetry) out.push({ name, telemetry });
  }
  return out;
}

export async function saveTelemetryConfig(
  configDir: string,
  profile: string,
  config: TelemetryConfig,
): Promise<string> {
  const path = configPath(configDir);
  const file = await readConfigFile(configDir);
  let next: Record<string, unknown>;
  if (profile === DEFAULT_PROFILE) {
    next = { ...file, telemetry: config };
  } else {
    const profiles = isRecord(file.profiles) ? file.profiles : {};
    const section = ownRecord(profiles, profile) ?? {};
    next = { ...file, profiles: { ...profiles, [profile]: { ...section, telemetry: config } } };
  }
  await writeFileAtomic(path, `${JSON.stringify(next, null, 2)}\n`, 0o600);
  return path;
}

async function readConfigFile(configDir: string): Promise<Record<string, unknown>> {
  const path = configPath(configDir);
  const text = await readOptionalFile(path);
  if (text === undefined) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new CliError(
      `${path} is not valid JSON. Fix it, or remove it and run havn configure telemetry --app-id <application-id>.`,
    );
  }
  return isRecord(parsed) ? parsed : {};
}

function profileSection(file: Record<string, unknown>, profile: string): unknown {
  if (profile === DEFAULT_PROFILE) return file.telemetry;
  const section = isRecord(file.profiles) ? ownRecord(file.profiles, profile) : undefined;
  return section?.telemetry;
}

// Own properties only: a profile named `constructor` or `__proto__` must not find Object's.
function ownRecord(
  record: Record<string, unknown>,
  key: string,
): Record<string, unknown> | undefined {
  if (!Object.hasOwn(record, key)) return undefined;
  const value = record[key];
  return isRecord(value) ? value : undefined;
}

function telemetryOf(telemetry: unknown): TelemetryConfig | undefined {
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

function optionalString<K extends string>(key: K, value: unknown): Partial<Record<K, string>> {
  return typeof value === 'string' && value !== '' ? ({ [key]: value } as Record<K, string>) : {};
}
