import { join } from 'node:path';
import type { UploadConfig } from '../config.js';
import { DirFileBytes, S3FileBytes, type FileBytes } from './file-bytes.js';

/**
 * Where uploaded files live (docs/configuration.md#file-uploads): the directory, or S3 with
 * received files waiting in the directory's `.incoming` folder. The AWS SDK is loaded only for
 * S3, so a server that keeps files on disk starts as fast as before.
 */
export async function openFileBytes(
  config: UploadConfig,
): Promise<{ bytes: FileBytes; close(): void }> {
  if (config.s3) {
    const { S3ObjectStore } = await import('@havn/shared/object-store');
    const objects = new S3ObjectStore(config.s3.location, config.s3.settings);
    const bytes = new S3FileBytes(objects, join(config.dir, '.incoming'));
    await bytes.init();
    return {
      bytes,
      close: () => {
        objects.close();
      },
    };
  }
  const bytes = new DirFileBytes(config.dir);
  await bytes.init();
  return { bytes, close: () => undefined };
}
