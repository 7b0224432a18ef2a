import { isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  collectEnv,
  ConfigError,
  envAddressList,
  envFlag,
  envInt,
  envList,
  envMatching,
  envOneOf,
  envString,
  envUrl,
  parseS3Url,
  PUBLIC_HOST_PATTERN,
  type S3Location,
  type S3Settings,
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
  /** ALLOWED_PUBLIC_HOSTS: more names than PUBLIC_BASE_URL's the Host header may carry in open mode (docs/forms.md#open-mode). */
  readonly allowedPublicHosts: readonly string[];
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
  /** Where uploaded files' bytes live, and their limits (docs/forms.md#file-uploads). */
  readonly uploads: UploadConfig;
}

/** docs/configuration.md#file-uploads. */
export interface UploadConfig {
  /** UPLOAD_STORE=s3://bucket/prefix; undefined keeps the bytes in `dir`. */
  readonly s3: { location: S3Location; settings: S3Settings } | undefined;
  /** UPLOAD_STORE as a directory, else `<USER_DATA_DIR>/uploads`; S3 uploads arrive here first. */
  readonly dir: string;
  /** UPLOAD_MAX_BYTES: the most one file may have, whatever a definition says. */
  readonly maxBytes: number;
  /** UPLOAD_MAX_TOTAL_BYTES: the most all files of one submission may have together. */
  readonly maxTotalBytes: number;
  /** UPLOAD_URL_TTL_SECONDS: how long a webhook's signed file URL works. */
  readonly urlTtlSeconds: number;
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
  ALLOWED_PUBLIC_HOSTS: envList(),
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
  UPLOAD_STORE: envString(),
  UPLOAD_MAX_BYTES: envInt(10 * 1024 * 1024, 1, 2 ** 40),
  UPLOAD_MAX_TOTAL_BYTES: envInt(25 * 1024 * 1024, 1, 2 ** 40),
  UPLOAD_URL_TTL_SECONDS: envInt(86_400, 60, 30 * 86_400),
  AWS_ENDPOINT_URL: envUrl(),
  AWS_REGION: envString(),
  AWS_ACCESS_KEY_ID: envString(),
  AWS_SECRET_ACCESS_KEY: envString(),
};

/**
 * UPLOAD_STORE: unset keeps files in `<USER_DATA_DIR>/uploads`; an absolute path keeps them
 * there; `s3://bucket/prefix` in S3-compatible storage reached with the AWS_* variables.
 */
function uploadConfig(
  e: NonNullable<ReturnType<typeof collectEnv<typeof shape>>['values']>,
  userDataDir: string,
  problems: string[],
): UploadConfig {
  const store = e.UPLOAD_STORE;
  const local = join(userDataDir, 'uploads');
  let s3: UploadConfig['s3'];
  let dir = local;
  if (store?.startsWith('s3:')) {
    const location = parseS3Url(store);
    if (!location) problems.push('UPLOAD_STORE must be s3://bucket/prefix or a directory path');
    const [keyId, secret] = [e.AWS_ACCESS_KEY_ID, e.AWS_SECRET_ACCESS_KEY];
    if ((keyId === undefined) !== (secret === undefined)) {
      problems.push('AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY go together');
    }
    if (location) {
      s3 = {
        location,
        settings: {
          endpoint: e.AWS_ENDPOINT_URL,
          region: e.AWS_REGION,
          credentials:
            keyId !== undefined && secret !== undefined
              ? { accessKeyId: keyId, secretAccessKey: secret }
              : undefined,
        },
      };
    }
  } else if (store !== undefined) {
    if (!isAbsolute(store))
      problems.push('UPLOAD_STORE must be an absolute directory path or s3://bucket/prefix');
    dir = store;
  }
  if (e.UPLOAD_MAX_TOTAL_BYTES < e.UPLOAD_MAX_BYTES) {
    problems.push('UPLOAD_MAX_TOTAL_BYTES must be at least UPLOAD_MAX_BYTES');
  }
  return {
    s3,
    dir,
    maxBytes: e.UPLOAD_MAX_BYTES,
    maxTotalBytes: e.UPLOAD_MAX_TOTAL_BYTES,
    urlTtlSeconds: e.UPLOAD_URL_TTL_SECONDS,
  };
}

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
  const userDataDir = e?.USER_DATA_DIR ?? './data/forms';
  const uploads = e ? uploadConfig(e, userDataDir, problems) : undefined;
  const badHost = e?.ALLOWED_PUBLIC_HOSTS.find((h) => !PUBLIC_HOST_PATTERN.test(h));
  if (badHost !== undefined) {
    problems.push(
      `ALLOWED_PUBLIC_HOSTS must list host names such as forms.example.com or .example.com (got ${JSON.stringify(badHost)})`,
    );
  }
  if (problems.length > 0 || !e || !uploads) throw new ConfigError(problems);
  return Object.freeze({
    port: e.PORT,
    host: e.HOST ?? '127.0.0.1',
    userDataDir,
    databaseUrl,
    webDir: e.WEB_DIR ?? defaultWebDir(),
    publicBaseUrl: e.PUBLIC_BASE_URL,
    allowedPublicHosts: Object.freeze(e.ALLOWED_PUBLIC_HOSTS.map((h) => h.toLowerCase())),
    adminToken: e.FORM_ADMIN_TOKEN,
    allowPrivateWebhooks: e.ALLOW_PRIVATE_WEBHOOKS,
    ingestRateLimitPerMinute: e.INGEST_RATE_LIMIT_PER_MINUTE,
    trustProxy: e.TRUST_PROXY,
    vapidSubject: e.VAPID_SUBJECT,
    logLevel: e.LOG_LEVEL,
    smtp,
    uploads,
  });
}

/** A configuration for tests and embedding: defaults plus overrides. */
export function configWith(overrides: Partial<FormsConfig>): FormsConfig {
  const base = loadConfig({});
  // Files live beside the database unless the overrides say otherwise.
  const uploads =
    overrides.userDataDir === undefined
      ? base.uploads
      : { ...base.uploads, dir: join(overrides.userDataDir, 'uploads') };
  return Object.freeze({ ...base, uploads, ...overrides });
}
