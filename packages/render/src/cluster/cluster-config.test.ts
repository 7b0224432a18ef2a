import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';

// docs/render.md#several-instances: DATABASE_URL turns cluster mode on; without it the
// service is the one process it always was.

const base = { PATH: process.env.PATH, BROWSER_API_TOKEN: 'service-token' };
const db = 'postgres://render@db.internal:5432/havn';

describe('cluster configuration', () => {
  it('is off without DATABASE_URL', () => {
    expect(loadConfig(base).cluster).toBeUndefined();
  });

  it('has documented defaults, and a credential that is not the service token', () => {
    const c = loadConfig({ ...base, DATABASE_URL: db }).cluster!;
    expect(c).toMatchObject({
      databaseUrl: db,
      objectStore: undefined,
      instanceName: hostname(),
      instanceUrl: undefined,
      heartbeatMs: 2000,
      drainTimeoutMs: 30_000,
    });
    expect(c.credential).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(c.credential).not.toContain('service-token');
    // The same on every instance with the same token, and different for another token.
    expect(loadConfig({ ...base, DATABASE_URL: db }).cluster!.credential).toBe(c.credential);
    const other = loadConfig({ ...base, BROWSER_API_TOKEN: 'x', DATABASE_URL: db }).cluster!;
    expect(other.credential).not.toBe(c.credential);
    const own = loadConfig({ ...base, DATABASE_URL: db, CLUSTER_SECRET: 'a'.repeat(32) }).cluster!;
    expect(own.credential).not.toBe(c.credential);
  });

  it('reads the S3 store and the standard AWS variables', () => {
    const c = loadConfig({
      ...base,
      DATABASE_URL: db,
      ARTIFACT_STORE: 's3://render-artifacts/prod/eu/',
      AWS_ENDPOINT_URL: 'https://minio.internal:9000/',
      AWS_REGION: 'eu-north-1',
      AWS_ACCESS_KEY_ID: 'AKIA',
      AWS_SECRET_ACCESS_KEY: 'secret',
      INSTANCE_NAME: 'render-a',
      INSTANCE_URL: 'http://10.0.0.7:3000',
      CLUSTER_HEARTBEAT_MS: '500',
      DRAIN_TIMEOUT_MS: '0',
    }).cluster!;
    expect(c).toMatchObject({
      objectStore: { bucket: 'render-artifacts', prefix: 'prod/eu/' },
      s3: {
        endpoint: 'https://minio.internal:9000',
        region: 'eu-north-1',
        credentials: { accessKeyId: 'AKIA', secretAccessKey: 'secret' },
      },
      instanceName: 'render-a',
      instanceUrl: 'http://10.0.0.7:3000',
      heartbeatMs: 500,
      drainTimeoutMs: 0,
    });
  });

  it('names every bad cluster variable in one message', () => {
    let message = '';
    try {
      loadConfig({
        ...base,
        DATABASE_URL: 'mysql://x/y',
        ARTIFACT_STORE: 'gs://bucket',
        AWS_ACCESS_KEY_ID: 'only-one',
        INSTANCE_URL: 'ftp://x',
        CLUSTER_HEARTBEAT_MS: '5',
        CLUSTER_SECRET: 'short',
      });
    } catch (err) {
      message = (err as Error).message;
    }
    for (const name of [
      'DATABASE_URL must be postgres://',
      'ARTIFACT_STORE must be s3://bucket/prefix',
      'AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY go together',
      'INSTANCE_URL must be an http(s) URL',
      'CLUSTER_HEARTBEAT_MS must be',
      'CLUSTER_SECRET must be at least 16 characters',
    ]) {
      expect(message).toContain(name);
    }
  });

  it('needs DATABASE_URL for an S3 store, and a secret when anonymous', () => {
    expect(() => loadConfig({ ...base, ARTIFACT_STORE: 's3://bucket/p' })).toThrow(
      /ARTIFACT_STORE needs DATABASE_URL/,
    );
    expect(() =>
      loadConfig({ PATH: process.env.PATH, ALLOW_ANONYMOUS: '1', DATABASE_URL: db }),
    ).toThrow(/CLUSTER_SECRET is required with DATABASE_URL when ALLOW_ANONYMOUS=1/);
  });
});
