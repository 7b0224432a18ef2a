import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';

// No S3-compatible server can be installed on this machine (Debian ships none, and nothing may
// download a binary), so the S3 stores (render's artifacts, forms' uploads) are tested against
// s3rver from npm: a stand-in that speaks the S3 REST wire format (path-style, SigV4, XML
// listings) on loopback. The stores only send requests every S3-compatible service accepts;
// nothing in them is there for s3rver.

export interface S3StandIn {
  /** AWS_ENDPOINT_URL for the store. */
  endpoint: string;
  bucket: string;
  /** The AWS_* variables a service needs to use it. */
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function startS3StandIn(bucket = 'havn-test'): Promise<S3StandIn> {
  const dir = await mkdtemp(join(tmpdir(), 'havn-s3-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory: dir,
    configureBuckets: [{ name: bucket, configs: [] }],
  });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    bucket,
    // s3rver's fixed development key pair.
    env: {
      AWS_ENDPOINT_URL: endpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
    },
    close: async () => {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
