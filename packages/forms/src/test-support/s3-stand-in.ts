import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';

// Uploaded files in S3 (UPLOAD_STORE=s3://…) are tested against s3rver, as render's artifacts are
// (render's test-support/s3-stand-in.ts, which this part may not import): a stand-in speaking the
// S3 REST wire format (path-style, SigV4, XML listings) on loopback.

export interface S3StandIn {
  /** AWS_ENDPOINT_URL for the store. */
  endpoint: string;
  bucket: string;
  close(): Promise<void>;
}

export async function startS3StandIn(bucket = 'havn-uploads'): Promise<S3StandIn> {
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
    close: async () => {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
