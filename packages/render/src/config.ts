import { accessSync, constants } from 'node:fs';
import { availableParallelism } from 'node:os';
import { delimiter, join } from 'node:path';
import { ConfigError, envFlag, envInt, envList, envString, envUrl, parseEnv } from '@havn/shared';

// The one place the render service reads its environment (spec 1 §8, 0-decisions §1). Every bad
// variable is reported in one message; the result is frozen and passed down as an argument.

const MiB = 1024 * 1024;

/** Where CHROMIUM_PATH looks when unset, in order (0-decisions §1). */
const CHROMIUM_CANDIDATES = [
  '/usr/bin/chromium-headless-shell',
  '/usr/bin/chromium',
  'chromium-browser',
  'google-chrome',
];

export interface RenderConfig {
  readonly port: number;
  readonly host: string;
  readonly apiToken: string | undefined;
  readonly allowAnonymous: boolean;
  readonly chromiumPath: string;
  readonly artifactDir: string;
  readonly artifactTtlMs: number;
  readonly maxConcurrency: number;
  readonly queueTimeoutMs: number;
  readonly renderTimeoutMs: number;
  readonly maxHtmlBytes: number;
  readonly allowedHosts: readonly string[];
  readonly allowPrivateNetwork: boolean;
  readonly allowInsecureTls: boolean;
  // Browser sessions (spec 1 §4.5-4.11), parsed here so that the sessions plugin finds them ready.
  readonly maxSessions: number;
  readonly sessionTtlMs: number;
  readonly sessionMaxTtlMs: number;
  readonly publicBaseUrl: string | undefined;
  readonly ffmpegPath: string;
}

const shape = {
  PORT: envInt(3000, 0, 65535),
  HOST: envString(),
  BROWSER_API_TOKEN: envString(),
  ALLOW_ANONYMOUS: envFlag(),
  CHROMIUM_PATH: envString(),
  ARTIFACT_DIR: envString(),
  ARTIFACT_TTL_MS: envInt(86_400_000, 1000),
  MAX_CONCURRENCY: envInt(Math.max(2, availableParallelism()), 1, 256),
  QUEUE_TIMEOUT_MS: envInt(30_000, 1),
  RENDER_TIMEOUT_MS: envInt(30_000, 100),
  MAX_HTML_BYTES: envInt(5 * MiB, 1, 100 * MiB),
  ALLOWED_HOSTS: envList(),
  ALLOW_PRIVATE_NETWORK: envFlag(),
  ALLOW_INSECURE_TLS: envFlag(),
  MAX_SESSIONS: envInt(8, 0, 1000),
  SESSION_TTL_MS: envInt(300_000, 1000),
  SESSION_MAX_TTL_MS: envInt(3_600_000, 1000),
  PUBLIC_BASE_URL: envUrl(),
  FFMPEG_PATH: envString(),
};

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The first candidate that exists: absolute paths as given, bare names searched on PATH. */
export function findExecutable(
  candidates: readonly string[],
  pathVar: string | undefined,
): string | undefined {
  const dirs = (pathVar ?? '').split(delimiter).filter(Boolean);
  for (const candidate of candidates) {
    if (candidate.includes('/')) {
      if (isExecutable(candidate)) return candidate;
      continue;
    }
    const found = dirs.map((d) => join(d, candidate)).find(isExecutable);
    if (found) return found;
  }
  return undefined;
}

/** Parses the render service's environment; throws ConfigError naming every bad variable. */
export function loadConfig(env: Readonly<Record<string, string | undefined>>): RenderConfig {
  const problems: string[] = [];
  let e: ReturnType<typeof parseEnv<typeof shape>> | undefined;
  try {
    e = parseEnv(shape, env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    problems.push(...err.problems);
  }
  // spec 1 §5 rule 6: no token, no start (unless anonymous on purpose).
  const anonymous = env.ALLOW_ANONYMOUS === '1' || env.ALLOW_ANONYMOUS === 'true';
  if (!anonymous && !env.BROWSER_API_TOKEN) {
    problems.push('BROWSER_API_TOKEN: required unless ALLOW_ANONYMOUS=1');
  }
  const chromiumPath = env.CHROMIUM_PATH
    ? findExecutable([env.CHROMIUM_PATH], env.PATH)
    : findExecutable(CHROMIUM_CANDIDATES, env.PATH);
  if (env.CHROMIUM_PATH && !chromiumPath) {
    problems.push(`CHROMIUM_PATH: ${env.CHROMIUM_PATH} is not an executable file`);
  } else if (!chromiumPath) {
    problems.push(
      `CHROMIUM_PATH: no browser found (looked for ${CHROMIUM_CANDIDATES.join(', ')}); install chromium-headless-shell or set CHROMIUM_PATH`,
    );
  }
  if (e && e.SESSION_TTL_MS > e.SESSION_MAX_TTL_MS) {
    problems.push('SESSION_TTL_MS: must not exceed SESSION_MAX_TTL_MS');
  }
  if (problems.length > 0 || !e || !chromiumPath) throw new ConfigError(problems);
  return Object.freeze({
    port: e.PORT,
    host: e.HOST ?? '127.0.0.1',
    apiToken: e.BROWSER_API_TOKEN,
    allowAnonymous: e.ALLOW_ANONYMOUS,
    chromiumPath,
    artifactDir: e.ARTIFACT_DIR ?? './data/artifacts',
    artifactTtlMs: e.ARTIFACT_TTL_MS,
    maxConcurrency: e.MAX_CONCURRENCY,
    queueTimeoutMs: e.QUEUE_TIMEOUT_MS,
    renderTimeoutMs: e.RENDER_TIMEOUT_MS,
    maxHtmlBytes: e.MAX_HTML_BYTES,
    allowedHosts: Object.freeze([...e.ALLOWED_HOSTS]),
    allowPrivateNetwork: e.ALLOW_PRIVATE_NETWORK,
    allowInsecureTls: e.ALLOW_INSECURE_TLS,
    maxSessions: e.MAX_SESSIONS,
    sessionTtlMs: e.SESSION_TTL_MS,
    sessionMaxTtlMs: e.SESSION_MAX_TTL_MS,
    publicBaseUrl: e.PUBLIC_BASE_URL,
    ffmpegPath: e.FFMPEG_PATH ?? 'ffmpeg',
  });
}
