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
import { isMailbox, parseSmtpUrl, type SmtpConfig } from './smtp-config.js';

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
  /** SMTP_URL and SMTP_FROM; undefined turns email notices off (docs/forms.md#email-notices). */
  readonly smtp: SmtpConfig | undefined;
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
  SMTP_URL: envString(),
  SMTP_FROM: envString(),
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

/**
 * SMTP_URL (smtp:// or smtps://, optional user:password) and SMTP_FROM, the sender of email
 * notices (docs/forms.md#email-notices). Both unset: notices are off. A problem names the variable
 * and never repeats the URL, which may hold a password.
 */
function smtpConfig(
  url: string | undefined,
  from: string | undefined,
  problems: string[],
): SmtpConfig | undefined {
  if (url === undefined) {
    if (from !== undefined)
      problems.push('SMTP_FROM is set but SMTP_URL is not; set both or neither');
    return undefined;
  }
  const parsed = parseSmtpUrl(url);
  if (typeof parsed === 'string') problems.push(`SMTP_URL ${parsed}`);
  if (from === undefined)
    problems.push('SMTP_FROM must be set when SMTP_URL is (e.g. Havn forms <forms@example.com>)');
  else if (!isMailbox(from)) {
    problems.push(
      `SMTP_FROM must be an address like forms@example.com or Havn forms <forms@example.com> (got ${JSON.stringify(from)})`,
    );
  }
  return typeof parsed === 'string' || from === undefined ? undefined : { ...parsed, from };
}

/** Parses the environment; throws ConfigError naming every bad variable. */
export function loadConfig(env: Readonly<Record<string, string | undefined>>): FormsConfig {
  const { values: e, problems } = collectEnv(shape, env);
  const databaseUrl = postgresUrl(env.DATABASE_URL || undefined, problems);
  const smtp = smtpConfig(env.SMTP_URL || undefined, env.SMTP_FROM || undefined, problems);
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
    smtp,
  });
}

/** A configuration for tests and embedding: defaults plus overrides. */
export function configWith(overrides: Partial<FormsConfig>): FormsConfig {
  return Object.freeze({ ...loadConfig({}), ...overrides });
}

export function webDirReady(webDir: string): boolean {
  return existsSync(webDir);
}
