import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  collectEnv,
  ConfigError,
  envAddressList,
  envFlag,
  envInt,
  envMatching,
  envOneOf,
  envString,
  envUrl,
} from '@havn/shared';

/** The forms server's configuration: parsed once from the environment, frozen (docs/forms.md#configuration). */
export interface FormsConfig {
  readonly port: number;
  readonly host: string;
  readonly userDataDir: string;
  /** DATABASE_URL when it names PostgreSQL; undefined for the embedded SQLite store. */
  readonly databaseUrl: string | undefined;
  /** Where the web app lives (WEB_DIR); may not exist yet (a placeholder page is served). */
  readonly webDir: string;
  readonly publicBaseUrl: string | undefined;
  /** FORM_ADMIN_TOKEN; undefined means open mode (docs/forms.md#configuration). */
  readonly adminToken: string | undefined;
  readonly allowPrivateWebhooks: boolean;
  /** Submissions per client IP per form per minute; 0 turns the limit off. */
  readonly ingestRateLimitPerMinute: number;
  /** Addresses or CIDR ranges of reverse proxies whose X-Forwarded-For is honoured. */
  readonly trustProxy: readonly string[];
  readonly vapidSubject: string;
  readonly logLevel: Level;
}

/** The built web app, resolved from this file (src/ or dist/), never from the working directory. */
export function defaultWebDir(): string {
  return fileURLToPath(new URL('../../forms-web/dist', import.meta.url));
}

const levels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
type Level = (typeof levels)[number];

const shape = {
  PORT: envInt(3100, 0, 65535),
  HOST: envString(),
  USER_DATA_DIR: envString(),
  DATABASE_URL: envString(),
  WEB_DIR: envString(),
  PUBLIC_BASE_URL: envUrl(),
  FORM_ADMIN_TOKEN: envString(),
  ALLOW_PRIVATE_WEBHOOKS: envFlag(),
  INGEST_RATE_LIMIT_PER_MINUTE: envInt(100, 0, 1_000_000),
  TRUST_PROXY: envAddressList(),
  VAPID_SUBJECT: envMatching(
    /^(mailto:|https:\/\/)/,
    'must start with mailto: or https://',
    'mailto:forms@havn.invalid',
  ),
  LOG_LEVEL: envOneOf(levels, 'info'),
};

/**
 * DATABASE_URL: unset or `sqlite:` keeps the embedded SQLite store in USER_DATA_DIR; a
 * `postgres://` (or `postgresql://`) URL with a host and a database name selects PostgreSQL.
 */
function postgresUrl(value: string | undefined, problems: string[]): string | undefined {
  if (value === undefined || value.startsWith('sqlite:')) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (
    url === undefined ||
    (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') ||
    url.hostname === '' ||
    url.pathname.length < 2
  ) {
    problems.push('DATABASE_URL must be postgres://user:password@host:port/database (or unset)');
    return undefined;
  }
  return value;
}

/** Parses the environment; throws ConfigError naming every bad variable. */
export function loadConfig(env: Readonly<Record<string, string | undefined>>): FormsConfig {
  const { values: e, problems } = collectEnv(shape, env);
  const databaseUrl = postgresUrl(env.DATABASE_URL || undefined, problems);
  if (problems.length > 0 || !e) throw new ConfigError(problems);
  return Object.freeze({
    port: e.PORT,
    host: e.HOST ?? '127.0.0.1',
    userDataDir: e.USER_DATA_DIR ?? './data/forms',
    databaseUrl,
    webDir: e.WEB_DIR ?? defaultWebDir(),
    publicBaseUrl: e.PUBLIC_BASE_URL,
    adminToken: e.FORM_ADMIN_TOKEN,
    allowPrivateWebhooks: e.ALLOW_PRIVATE_WEBHOOKS,
    ingestRateLimitPerMinute: e.INGEST_RATE_LIMIT_PER_MINUTE,
    trustProxy: e.TRUST_PROXY,
    vapidSubject: e.VAPID_SUBJECT,
    logLevel: e.LOG_LEVEL,
  });
}

/** A configuration for tests and embedding: defaults plus overrides. */
export function configWith(overrides: Partial<FormsConfig>): FormsConfig {
  return Object.freeze({ ...loadConfig({}), ...overrides });
}

export function webDirReady(webDir: string): boolean {
  return existsSync(webDir);
}
