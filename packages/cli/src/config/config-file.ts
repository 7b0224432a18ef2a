// <configDir>/config.json: one file, one section a group (`telemetry`, `render`, `forms`) in each
// profile. The top-level sections are the `default` profile; named profiles sit under
// `profiles.<name>` (docs/cli.md#profiles). Writing one section of one profile keeps everything
// else in the file.
import { join } from 'node:path';
import { CliError, UsageError } from '../errors.js';
import { isRecord } from '../upstream/coerce.js';
import { readOptionalFile, writeFileAtomic } from './private-file.js';

export const DEFAULT_PROFILE = 'default';

export type SectionName = 'telemetry' | 'render' | 'forms';

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

/** The raw section of a profile, or undefined. */
export async function loadSection(
  configDir: string,
  profile: string,
  section: SectionName,
): Promise<Record<string, unknown> | undefined> {
  return sectionOf(await readConfigFile(configDir), profile, section);
}

/** Every profile name in the file with the section, `default` first, then by name. */
export async function profilesWith(
  configDir: string,
  section: SectionName,
): Promise<{ name: string; section: Record<string, unknown> }[]> {
  const file = await readConfigFile(configDir);
  const names = isRecord(file.profiles) ? Object.keys(file.profiles).sort() : [];
  const out: { name: string; section: Record<string, unknown> }[] = [];
  for (const name of [DEFAULT_PROFILE, ...names.filter((n) => n !== DEFAULT_PROFILE)]) {
    const found = sectionOf(file, name, section);
    if (found) out.push({ name, section: found });
  }
  return out;
}

/** Replaces one section of one profile; returns the file's path. */
export async function saveSection(
  configDir: string,
  profile: string,
  section: SectionName,
  value: Record<string, unknown>,
): Promise<string> {
  const path = configPath(configDir);
  const file = await readConfigFile(configDir);
  let next: Record<string, unknown>;
  if (profile === DEFAULT_PROFILE) {
    next = { ...file, [section]: value };
  } else {
    const profiles = isRecord(file.profiles) ? file.profiles : {};
    const current = ownRecord(profiles, profile) ?? {};
    next = { ...file, profiles: { ...profiles, [profile]: { ...current, [section]: value } } };
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
      `${path} is not valid JSON. Fix it, or remove it and run havn configure again.`,
    );
  }
  return isRecord(parsed) ? parsed : {};
}

function sectionOf(
  file: Record<string, unknown>,
  profile: string,
  section: SectionName,
): Record<string, unknown> | undefined {
  const holder =
    profile === DEFAULT_PROFILE
      ? file
      : isRecord(file.profiles)
        ? ownRecord(file.profiles, profile)
        : undefined;
  return holder ? ownRecord(holder, section) : undefined;
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

/** `{ key: value }` when value is a non-empty string, else `{}`: for optional fields. */
export function optionalString<K extends string>(
  key: K,
  value: unknown,
): Partial<Record<K, string>> {
  return typeof value === 'string' && value !== '' ? ({ [key]: value } as Record<K, string>) : {};
}
