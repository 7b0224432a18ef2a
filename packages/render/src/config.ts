import { accessSync, constants } from 'node:fs';
import { availableParallelism, totalmem } from 'node:os';
import { delimiter, join } from 'node:path';
import {
  collectEnv,
  ConfigError,
  envFlag,
  envInt,
  envList,
  envString,
  envUrl,
  PUBLIC_HOST_PATTERN,
} from '@havn/shared';
import type { UidRange } from './browser/browser-runtime.js';
import { DEFAULT_CAPTURE_LIMITS, type CaptureLimits } from './capture-limits.js';
import { clusterConfig, clusterShape, type ClusterConfig } from './cluster/cluster-config.js';

// The one place the render service reads its environment (docs/render.md#configuration). Every bad
// variable is reported in one message; the result is frozen and passed down as an argument.

const MiB = 1024 * 1024;

/** Where CHROMIUM_PATH looks when unset, in order (docs/setup.md). */
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
  // Browser sessions (docs/sessions.md#configuration), parsed here so that the sessions plugin finds them ready.
  readonly maxSessions: number;
  readonly sessionTtlMs: number;
  readonly sessionMaxTtlMs: number;
  readonly publicBaseUrl: string | undefined;
  /** ALLOWED_PUBLIC_HOSTS: names the Host header may carry into URLs (docs/render.md#hosts-and-origins). */
  readonly allowedPublicHosts: readonly string[];
  readonly ffmpegPath: string;
  /** QPDF_PATH: Debian's qpdf, which protects PDFs (docs/render.md#protection). */
  readonly qpdfPath: string;
  /** MAX_CONTENT_BYTES: the largest text a content endpoint answers; past it `truncated: true`. */
  readonly maxContentBytes: number;
  /** MAX_VIEWPORT, MAX_DEVICE_SCALE_FACTOR, MAX_CAPTURE_PIXELS (docs/configuration.md#bounds). */
  readonly captureLimits: CaptureLimits;
  /** CDP_MAX_MESSAGE_BYTES: the largest client message through the door. */
  readonly cdpMaxMessageBytes: number;
  /** CDP_MAX_CLIENTS: clients attached to one session at once. */
  readonly cdpMaxClients: number;
  /** DOWNLOAD_MAX_BYTES: the largest file a session's page may download (kept as an artifact). */
  readonly downloadMaxBytes: number;
  /** SESSION_MAX_DOWNLOADS: downloads one session may begin. */
  readonly sessionMaxDownloads: number;
  /** SESSION_MAX_DOWNLOAD_BYTES: bytes one session's downloads may take together. */
  readonly sessionMaxDownloadBytes: number;
  /** SESSION_MAX_DISK_BYTES: what one session browser's profile may take on disk. */
  readonly sessionMaxDiskBytes: number;
  /** ARTIFACT_MAX_BYTES: the store's total; past it the oldest artifacts expire first. */
  readonly artifactMaxBytes: number;
  /** BROWSER_MAX_MEMORY: one browser's memory bound in bytes; undefined for `off`. */
  readonly browserMaxMemory: number | undefined;
  /** SESSION_POOL_SIZE: session browsers launched ahead of their sessions; 0 for none. */
  readonly sessionPoolSize: number;
  /** SESSION_MAX_PAGES: pages (tabs and popups) one session may have open at once. */
  readonly sessionMaxPages: number;
  /** PAGE_MAX_HEAP_MB: V8 heap bound of a render's page, in MiB; undefined for Chromium's own (0). */
  readonly pageMaxHeapMb: number | undefined;
  /** BROWSER_UIDS: the uids browsers run under when the service is root; undefined for `off`. */
  readonly browserUids: UidRange | undefined;
  /** STATE_KEY: the 32-byte key saved browser states are sealed with; undefined when unset. */
  readonly stateKey: Buffer | undefined;
  /** MAX_STATE_BYTES: the largest saved browser state (its JSON). */
  readonly maxStateBytes: number;
  /** Several instances on one database (docs/render.md#several-instances); else undefined. */
  readonly cluster: ClusterConfig | undefined;
}

// A host name, or `.name` for the name and its subdomains; no port, no scheme.
const DEFAULT_BROWSER_UIDS = '64000-64999';

const SIZE_UNITS: Readonly<Record<string, number>> = {
  '': 1,
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  kib: 1024,
  mib: MiB,
  gib: 1024 * MiB,
};

/** `2147483648`, `512MB`, `512MiB`, `2GiB` (case and a space before the unit do not matter). */
export function parseSize(text: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(text.trim());
  const unit = SIZE_UNITS[m?.[2]?.toLowerCase() ?? 'none'];
  if (!m || unit === undefined) return undefined;
  return Math.floor(Number(m[1]) * unit);
}

// A browser may take a quarter of the machine's memory, between 512 MiB and 2 GiB: on this
// project's 2-core machines that leaves room for the service and a few sessions at once.
const DEFAULT_BROWSER_MAX_MEMORY = Math.min(
  2048 * MiB,
  Math.max(512 * MiB, Math.floor(totalmem() / 4)),
);
// Chromium itself needs about this much to show a page at all.
const MIN_BROWSER_MEMORY = 128 * MiB;

/**
 * STATE_KEY's 32 bytes (docs/sessions.md#log-in-once-render-many-times), undefined for anything
 * else. Standard or URL-safe base64, padded or not; never echoed in a message.
 */
export function parseStateKey(text: string): Buffer | undefined {
  const trimmed = text.trim();
  if (!/^[A-Za-z0-9+/_-]{43}=?$/.test(trimmed)) return undefined;
  const key = Buffer.from(trimmed.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  return key.length === 32 ? key : undefined;
}

/** `first-last` within 1..2^31-1, or `off`; undefined when the text is neither. */
function uidRange(text: string): UidRange | 'off' | undefined {
  if (text === 'off') return 'off';
  const m = /^(\d+)-(\d+)$/.exec(text);
  if (!m) return undefined;
  const [first, last] = [Number(m[1]), Number(m[2])];
  return first >= 1 && first <= last && last < 2 ** 31 ? { first, last } : undefined;
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
  ALLOWED_PUBLIC_HOSTS: envList(),
  FFMPEG_PATH: envString(),
  QPDF_PATH: envString(),
  MAX_CONTENT_BYTES: envInt(5 * MiB, 1024, 100 * MiB),
  MAX_VIEWPORT: envInt(DEFAULT_CAPTURE_LIMITS.maxViewport, 16, 16_384),
  MAX_DEVICE_SCALE_FACTOR: envInt(DEFAULT_CAPTURE_LIMITS.maxDeviceScaleFactor, 1, 8),
  MAX_CAPTURE_PIXELS: envInt(DEFAULT_CAPTURE_LIMITS.maxCapturePixels, 256, 268_435_456),
  // A 50 MiB file handed to Playwright's setInputFiles travels base64 in one message (~67 MiB).
  CDP_MAX_MESSAGE_BYTES: envInt(80 * MiB, 64 * 1024, 1024 * MiB),
  CDP_MAX_CLIENTS: envInt(4, 1, 64),
  DOWNLOAD_MAX_BYTES: envInt(100 * MiB, 1, 4096 * MiB),
  SESSION_MAX_DOWNLOADS: envInt(25, 0, 100_000),
  SESSION_MAX_DOWNLOAD_BYTES: envInt(500 * MiB, 0, 1024 * 1024 * MiB),
  SESSION_MAX_DISK_BYTES: envInt(1024 * MiB, 16 * MiB, 1024 * 1024 * MiB),
  ARTIFACT_MAX_BYTES: envInt(10 * 1024 * MiB, MiB, Number.MAX_SAFE_INTEGER),
  PAGE_MAX_HEAP_MB: envInt(1024, 0, 65_536),
  BROWSER_UIDS: envString(),
  BROWSER_MAX_MEMORY: envString(),
  SESSION_MAX_PAGES: envInt(20, 1, 1000),
  STATE_KEY: envString(),
  MAX_STATE_BYTES: envInt(10 * MiB, 1024, 1024 * MiB),
  SESSION_POOL_SIZE: envInt(1, 0, 64),
  ...clusterShape,
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

/** The default pool is never larger than MAX_SESSIONS (none when sessions are off). */
function poolSize(e: { SESSION_POOL_SIZE: number; MAX_SESSIONS: number }): number {
  return Math.min(e.SESSION_POOL_SIZE, e.MAX_SESSIONS);
}

/** Parses the render service's environment; throws ConfigError naming every bad variable. */
export function loadConfig(env: Readonly<Record<string, string | undefined>>): RenderConfig {
  const { values: e, problems } = collectEnv(shape, env);
  // No token, no start, unless anonymous on purpose (docs/render.md#configuration).
  const anonymous = env.ALLOW_ANONYMOUS === '1' || env.ALLOW_ANONYMOUS === 'true';
  if (!anonymous && !env.BROWSER_API_TOKEN) {
    problems.push('BROWSER_API_TOKEN is required unless ALLOW_ANONYMOUS=1');
  }
  const chromiumPath = env.CHROMIUM_PATH
    ? findExecutable([env.CHROMIUM_PATH], env.PATH)
    : findExecutable(CHROMIUM_CANDIDATES, env.PATH);
  if (env.CHROMIUM_PATH && !chromiumPath) {
    problems.push(
      `CHROMIUM_PATH must name an executable file (got ${JSON.stringify(env.CHROMIUM_PATH)})`,
    );
  } else if (!chromiumPath) {
    problems.push(
      `CHROMIUM_PATH is unset and no browser was found (looked for ${CHROMIUM_CANDIDATES.join(', ')}); install chromium-headless-shell or set CHROMIUM_PATH`,
    );
  }
  if (e && e.SESSION_TTL_MS > e.SESSION_MAX_TTL_MS) {
    problems.push('SESSION_TTL_MS must not exceed SESSION_MAX_TTL_MS');
  }
  const uids = uidRange(env.BROWSER_UIDS ?? DEFAULT_BROWSER_UIDS);
  if (!uids) problems.push('BROWSER_UIDS must be a range such as 64000-64999, or off');
  else if (uids !== 'off' && e && uids.last - uids.first < e.MAX_SESSIONS + poolSize(e)) {
    // One uid per session's browser, one per pooled browser, and one for the warm browser of
    // renders.
    const needed = e.MAX_SESSIONS + poolSize(e) + 1;
    problems.push(
      `BROWSER_UIDS must hold at least MAX_SESSIONS + SESSION_POOL_SIZE + 1 (${needed}) uids`,
    );
  }
  if (e && env.SESSION_POOL_SIZE !== undefined && e.SESSION_POOL_SIZE > e.MAX_SESSIONS) {
    // A pooled browser nobody can claim would only hold memory.
    problems.push(
      `SESSION_POOL_SIZE must not exceed MAX_SESSIONS (${e.MAX_SESSIONS}); 0 turns the pool off`,
    );
  }
  const badHost = e?.ALLOWED_PUBLIC_HOSTS.find((h) => !PUBLIC_HOST_PATTERN.test(h));
  if (badHost !== undefined) {
    problems.push(
      `ALLOWED_PUBLIC_HOSTS must list host names such as render.example.com or .example.com (got ${JSON.stringify(badHost)})`,
    );
  }
  const memoryText = env.BROWSER_MAX_MEMORY ?? String(DEFAULT_BROWSER_MAX_MEMORY);
  const memory = memoryText === 'off' ? 'off' : parseSize(memoryText);
  if (memory === undefined || (memory !== 'off' && memory < MIN_BROWSER_MEMORY)) {
    problems.push(
      `BROWSER_MAX_MEMORY must be bytes or a size such as 512MiB or 2GiB, at least 128MiB, or off (got ${JSON.stringify(memoryText)})`,
    );
  }
  const stateKey = env.STATE_KEY ? parseStateKey(env.STATE_KEY) : undefined;
  if (env.STATE_KEY && !stateKey) {
    // The value is a secret: the message says what is wrong with it, never what it is.
    problems.push(
      'STATE_KEY must be 32 random bytes in base64, 44 characters (make one with: openssl rand -base64 32)',
    );
  }
  const cluster = clusterConfig(env, e, env.BROWSER_API_TOKEN || undefined, problems);
  if (problems.length > 0 || !e || !chromiumPath || !uids || memory === undefined)
    throw new ConfigError(problems);
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
    allowedPublicHosts: Object.freeze(e.ALLOWED_PUBLIC_HOSTS.map((h) => h.toLowerCase())),
    ffmpegPath: e.FFMPEG_PATH ?? 'ffmpeg',
    qpdfPath: e.QPDF_PATH ?? 'qpdf',
    maxContentBytes: e.MAX_CONTENT_BYTES,
    captureLimits: Object.freeze({
      maxViewport: e.MAX_VIEWPORT,
      maxDeviceScaleFactor: e.MAX_DEVICE_SCALE_FACTOR,
      maxCapturePixels: e.MAX_CAPTURE_PIXELS,
    }),
    cdpMaxMessageBytes: e.CDP_MAX_MESSAGE_BYTES,
    cdpMaxClients: e.CDP_MAX_CLIENTS,
    downloadMaxBytes: e.DOWNLOAD_MAX_BYTES,
    sessionMaxDownloads: e.SESSION_MAX_DOWNLOADS,
    sessionMaxDownloadBytes: e.SESSION_MAX_DOWNLOAD_BYTES,
    sessionMaxDiskBytes: e.SESSION_MAX_DISK_BYTES,
    artifactMaxBytes: e.ARTIFACT_MAX_BYTES,
    pageMaxHeapMb: e.PAGE_MAX_HEAP_MB === 0 ? undefined : e.PAGE_MAX_HEAP_MB,
    browserUids: uids === 'off' ? undefined : uids,
    browserMaxMemory: memory === 'off' ? undefined : memory,
    sessionMaxPages: e.SESSION_MAX_PAGES,
    stateKey,
    maxStateBytes: e.MAX_STATE_BYTES,
    sessionPoolSize: poolSize(e),
    cluster,
  });
}
