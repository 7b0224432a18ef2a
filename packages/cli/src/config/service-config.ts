// Where `havn render` and `havn forms` send their requests, and with which token
// (docs/cli.md#render-and-forms-services). Per profile: the URL is the `render` or `forms` section of
// config.json; the token is in tokens.json (mode 0600, as credentials.json), so config.json holds
// no secret and can be shown or shared. HAVN_RENDER_TOKEN / HAVN_FORMS_TOKEN win over a stored
// token; `--url` wins over the stored URL.
import { join } from 'node:path';
import type { CliContext } from '../context.js';
import { CliError } from '../errors.js';
import { isRecord } from '../upstream/coerce.js';
import { baseUrlOf } from './base-url.js';
import { DEFAULT_PROFILE, loadSection, parseProfileName, saveSection } from './config-file.js';
import { readOptionalFile, writeFileAtomic } from './private-file.js';

export type ServiceName = 'render' | 'forms';

export const SERVICES: Readonly<
  Record<ServiceName, { title: string; env: string; example: string }>
> = {
  render: {
    title: 'render service',
    env: 'HAVN_RENDER_TOKEN',
    example: 'https://render.example.com',
  },
  forms: { title: 'forms server', env: 'HAVN_FORMS_TOKEN', example: 'https://forms.example.com' },
};

/** What a command talks to: the base URL, the token, and where each came from. */
export interface ServiceTarget {
  readonly service: ServiceName;
  readonly url: string;
  readonly token: string;
  readonly profile: string;
}

export interface StoredService {
  readonly url?: string;
  readonly token?: string;
}

export function tokensPath(configDir: string): string {
  return join(configDir, 'tokens.json');
}

/** The profile's stored URL and token for the service. */
export async function loadService(
  configDir: string,
  profile: string,
  service: ServiceName,
): Promise<StoredService> {
  const section = await loadSection(configDir, profile, service);
  const url = typeof section?.url === 'string' && section.url !== '' ? section.url : undefined;
  const token = (await readTokens(configDir))[profile]?.[service];
  return { ...(url === undefined ? {} : { url }), ...(token === undefined ? {} : { token }) };
}

/** Stores the URL (config.json) and the token (tokens.json, 0600); undefined keeps what is stored. */
export async function saveService(
  configDir: string,
  profile: string,
  service: ServiceName,
  next: { url?: string | undefined; token?: string | undefined },
): Promise<void> {
  if (next.url !== undefined) await saveSection(configDir, profile, service, { url: next.url });
  if (next.token !== undefined) {
    const tokens = await readTokens(configDir);
    const mine = { ...(tokens[profile] ?? {}), [service]: next.token };
    await writeFileAtomic(
      tokensPath(configDir),
      `${JSON.stringify({ ...tokens, [profile]: mine }, null, 2)}\n`,
      0o600,
    );
  }
}

/**
 * The service a command talks to: `--url` or the profile's URL, and HAVN_*_TOKEN or the
 * profile's token. A stored token is sent only to the stored URL: `--url` elsewhere needs the
 * environment's token, so a mistyped --url never receives the profile's secret.
 */
export async function resolveService(
  ctx: CliContext,
  service: ServiceName,
  options: { readonly url?: string | undefined; readonly profile?: string | undefined },
): Promise<ServiceTarget> {
  const profile = parseProfileName(options.profile ?? ctx.profile ?? DEFAULT_PROFILE);
  const info = SERVICES[service];
  const stored = await loadService(ctx.configDir, profile, service);
  const url =
    options.url === undefined ? stored.url : baseUrlOf(options.url, '--url', info.example);
  const select = profile === DEFAULT_PROFILE ? '' : ` --profile ${profile}`;
  if (url === undefined) {
    throw new CliError(
      `The ${info.title} is not configured${select === '' ? '' : ` for profile ${profile}`}.\nRun havn configure ${service}${select} --url <URL> --with-token < token.txt, or give --url <URL> and set ${info.env}.`,
    );
  }
  const envToken = ctx.serviceTokens[service];
  const token = envToken ?? (url === stored.url ? stored.token : undefined);
  if (token === undefined) {
    throw new CliError(
      url === stored.url
        ? `No token for the ${info.title} at ${url}.\nSet ${info.env}, or store one with: havn configure ${service}${select} --with-token < token.txt`
        : `No token for the ${info.title} at ${url}: a stored token is sent only to its own URL (${stored.url ?? 'none stored'}).\nSet ${info.env} for this one.`,
    );
  }
  return { service, url, token, profile };
}

async function readTokens(
  configDir: string,
): Promise<Record<string, Partial<Record<ServiceName, string>>>> {
  const text = await readOptionalFile(tokensPath(configDir));
  if (text === undefined) return Object.create(null) as Record<string, never>;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new CliError(
      `${tokensPath(configDir)} is not valid JSON. Remove it and store the tokens again with havn configure render|forms --with-token.`,
    );
  }
  if (!isRecord(parsed)) return Object.create(null) as Record<string, never>;
  // No prototype: a profile named `constructor` must not find Object's.
  const out = Object.create(null) as Record<string, Partial<Record<ServiceName, string>>>;
  for (const [profile, entry] of Object.entries(parsed)) {
    if (!isRecord(entry)) continue;
    const tokens: Partial<Record<ServiceName, string>> = {};
    for (const name of ['render', 'forms'] as const) {
      const value = entry[name];
      if (typeof value === 'string' && value !== '') tokens[name] = value;
    }
    out[profile] = tokens;
  }
  return out;
}
