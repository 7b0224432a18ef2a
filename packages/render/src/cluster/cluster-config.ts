import { createHmac } from 'node:crypto';
import { hostname } from 'node:os';
import type { z } from 'zod';
import { envInt, envUrl, parseS3Url, type S3Location, type S3Settings } from '@havn/shared';

// The variables of render on several instances (docs/render.md#several-instances),
// parsed with the rest of render's environment in config.ts. Cluster mode is on exactly when
// DATABASE_URL names a PostgreSQL database.

export interface ClusterConfig {
  readonly databaseUrl: string;
  /** ARTIFACT_STORE=s3://bucket/prefix; undefined keeps the bytes in ARTIFACT_DIR (shared). */
  readonly objectStore: S3Location | undefined;
  readonly s3: S3Settings;
  /** INSTANCE_NAME: how /healthz names this instance; never its address. */
  readonly instanceName: string;
  /** INSTANCE_URL: where peers reach this instance; undefined means its listening address. */
  readonly instanceUrl: string | undefined;
  /** What a forwarded request carries to prove it comes from a peer. */
  readonly credential: string;
  readonly heartbeatMs: number;
  readonly drainTimeoutMs: number;
}

/** The variables with a type of their own; the others are checked together in clusterConfig. */
export const clusterShape = {
  AWS_ENDPOINT_URL: envUrl(),
  INSTANCE_URL: envUrl(),
  CLUSTER_HEARTBEAT_MS: envInt(2000, 100, 60_000),
  DRAIN_TIMEOUT_MS: envInt(30_000, 0, 3_600_000),
};

type Env = Readonly<Record<string, string | undefined>>;
type Typed = Readonly<z.infer<z.ZodObject<typeof clusterShape>>>;

/** `postgres://` or `postgresql://` with a host and a database name. */
function isPostgresUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (
      (url.protocol === 'postgres:' || url.protocol === 'postgresql:') &&
      url.hostname !== '' &&
      url.pathname.length > 1
    );
  } catch {
    return false;
  }
}

/**
 * The cluster settings, or undefined without DATABASE_URL (one process, as always). Problems are
 * pushed onto `problems`, to be reported with every other bad variable; no value is echoed, since
 * DATABASE_URL and the secrets may hold passwords. `typed` is undefined when a typed variable
 * (anywhere in render's environment) is bad.
 */
export function clusterConfig(
  env: Env,
  typed: Typed | undefined,
  apiToken: string | undefined,
  problems: string[],
): ClusterConfig | undefined {
  const v = (name: string): string | undefined => (env[name] === '' ? undefined : env[name]);
  const databaseUrl = v('DATABASE_URL');
  const artifactStore = v('ARTIFACT_STORE');
  const [keyId, secretKey, clusterSecret] = [
    v('AWS_ACCESS_KEY_ID'),
    v('AWS_SECRET_ACCESS_KEY'),
    v('CLUSTER_SECRET'),
  ];
  if (artifactStore !== undefined && databaseUrl === undefined) {
    problems.push('ARTIFACT_STORE needs DATABASE_URL (the descriptors live in PostgreSQL)');
  }
  if (databaseUrl === undefined) return undefined;
  if (!isPostgresUrl(databaseUrl)) {
    problems.push('DATABASE_URL must be postgres://user:password@host:port/database (or unset)');
  }
  const objectStore = artifactStore === undefined ? undefined : parseS3Url(artifactStore);
  if (artifactStore !== undefined && !objectStore) {
    problems.push('ARTIFACT_STORE must be s3://bucket/prefix (or unset for ARTIFACT_DIR)');
  }
  if ((keyId === undefined) !== (secretKey === undefined)) {
    problems.push('AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY go together');
  }
  // The credential is the service token's HMAC (never the token itself), or a secret of its own.
  const secret = clusterSecret ?? apiToken;
  if (secret === undefined) {
    problems.push('CLUSTER_SECRET is required with DATABASE_URL when ALLOW_ANONYMOUS=1');
  } else if (clusterSecret !== undefined && clusterSecret.length < 16) {
    problems.push('CLUSTER_SECRET must be at least 16 characters');
  }
  if (!typed) return undefined;
  return {
    databaseUrl,
    objectStore,
    s3: {
      endpoint: typed.AWS_ENDPOINT_URL,
      region: v('AWS_REGION'),
      credentials:
        keyId !== undefined && secretKey !== undefined
          ? { accessKeyId: keyId, secretAccessKey: secretKey }
          : undefined,
    },
    instanceName: v('INSTANCE_NAME') ?? hostname(),
    instanceUrl: typed.INSTANCE_URL,
    credential: createHmac('sha256', secret ?? '')
      .update('havn render instance credential')
      .digest('base64url'),
    heartbeatMs: typed.CLUSTER_HEARTBEAT_MS,
    drainTimeoutMs: typed.DRAIN_TIMEOUT_MS,
  };
}
