import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, dropTestDatabase } from '../../../../test-support/test-database.js';
import { startS3StandIn, type S3StandIn } from '../../../../test-support/s3-stand-in.js';
import { startService, type TestService } from '../test-support/service.js';

// Two render instances on one database answer for each other's artifacts over HTTP, with the
// bytes in a shared ARTIFACT_DIR or in S3 (the s3rver stand-in, root test-support/).

let s3: S3StandIn;
beforeAll(async () => {
  s3 = await startS3StandIn();
});
afterAll(async () => {
  await s3.close();
});

const stores = [
  { name: 'a shared ARTIFACT_DIR', env: (): Record<string, string> => ({}) },
  {
    name: 'S3',
    env: (): Record<string, string> => ({
      ...s3.env,
      ARTIFACT_STORE: `s3://${s3.bucket}/shared-artifacts-${String(Date.now())}`,
    }),
  },
];

describe.each(stores)('artifacts of two instances on $name', ({ env }) => {
  let dir: string;
  let databaseUrl: string | undefined;
  let a: TestService;
  let b: TestService;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'havn-shared-'));
    databaseUrl = await createTestDatabase();
    const shared = { DATABASE_URL: databaseUrl!, ARTIFACT_DIR: join(dir, 'artifacts'), ...env() };
    [a, b] = await Promise.all([
      startService({ ...shared, INSTANCE_NAME: 'a' }),
      startService({ ...shared, INSTANCE_NAME: 'b' }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([a.close(), b.close()]);
    await dropTestDatabase(databaseUrl);
    await rm(dir, { recursive: true, force: true });
  });

  it('serves a render made on one instance from the other, and lists it there', async () => {
    const made = await a.post('/v1/render', {
      html: '<h1 style="color:#c00">Invoice 42</h1>',
      labels: { job: 'shared' },
    });
    expect(made.status).toBe(200);
    const artifact = made.body['artifact'] as { id: string; url: string; bytes: number };
    for (let i = 0; i < 10; i++) {
      const res = await b.call(artifact.url);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/png');
      expect(res.headers.get('cache-control')).toBe('private, max-age=3600');
      const bytes = Buffer.from(await res.arrayBuffer());
      expect(bytes.length).toBe(artifact.bytes);
      expect(bytes.subarray(1, 4).toString()).toBe('PNG');
    }
    const listed = (await (await b.call('/v1/artifacts?label=job:shared')).json()) as {
      artifacts: { id: string }[];
    };
    expect(listed.artifacts.map((x) => x.id)).toEqual([artifact.id]);
    expect((await b.call('/v1/artifacts/AAAAAAAAAAAAAAAAAAAAAA')).status).toBe(404);
  });
});
