import type { Readable } from 'node:stream';
import {
  DeleteObjectsCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  NoSuchKey,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import type { S3Location, S3Settings } from '../s3-location.js';

// Objects in S3-compatible storage, for whichever service keeps files there (render's artifact
// bytes: docs/render.md#several-instances). Plain S3 REST through the AWS SDK: nothing
// here depends on a particular server, so AWS S3, MinIO, Ceph RGW, R2 and the like all serve it.

/** One stored object as a listing reports it. */
export interface StoredObject {
  /** The key below the store's prefix. */
  name: string;
  lastModified: Date;
  bytes: number;
}

export class S3ObjectStore {
  readonly #client: S3Client;
  readonly #location: S3Location;

  constructor(location: S3Location, settings: S3Settings = {}) {
    this.#location = location;
    this.#client = new S3Client({
      region: settings.region ?? 'us-east-1',
      ...(settings.endpoint !== undefined && {
        endpoint: settings.endpoint,
        // Virtual-host addressing needs a DNS name per bucket, which self-hosted services rarely
        // have; every S3-compatible service answers path-style.
        forcePathStyle: true,
      }),
      ...(settings.credentials && { credentials: settings.credentials }),
      // Checksums only where S3 requires them: a body of known length is sent in one piece, not
      // aws-chunked with a trailer, which several S3-compatible services refuse.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  #key(name: string): string {
    return `${this.#location.prefix}${name}`;
  }

  /**
   * Stores `body` under `name`. S3 makes an object visible only once the whole upload has
   * arrived, so no reader ever sees a part of it.
   */
  async put(
    name: string,
    body: Buffer | Readable,
    options: { contentType: string; bytes: number },
  ): Promise<void> {
    await this.#client.send(
      new PutObjectCommand({
        Bucket: this.#location.bucket,
        Key: this.#key(name),
        Body: body,
        ContentType: options.contentType,
        ContentLength: options.bytes,
      }),
    );
  }

  /** The object's bytes as a stream and their count, or undefined when there is no such object. */
  async get(name: string): Promise<{ stream: Readable; bytes: number } | undefined> {
    try {
      const out = await this.#client.send(
        new GetObjectCommand({ Bucket: this.#location.bucket, Key: this.#key(name) }),
      );
      // In Node the SDK's body is an http.IncomingMessage, a Readable.
      return { stream: out.Body as Readable, bytes: out.ContentLength ?? 0 };
    } catch (err) {
      if (err instanceof NoSuchKey) return undefined;
      if (err instanceof S3ServiceException && err.$metadata.httpStatusCode === 404)
        return undefined;
      throw err;
    }
  }

  /** Deletes the objects (absent ones are no error), up to 1000 a request as S3 allows. */
  async delete(names: readonly string[]): Promise<void> {
    for (let i = 0; i < names.length; i += 1000) {
      const batch = names.slice(i, i + 1000);
      await this.#client.send(
        new DeleteObjectsCommand({
          Bucket: this.#location.bucket,
          Delete: { Objects: batch.map((name) => ({ Key: this.#key(name) })), Quiet: true },
        }),
      );
    }
  }

  /** Every object below the prefix, a page of up to 1000 at a time. */
  async *list(): AsyncGenerator<StoredObject> {
    let token: string | undefined;
    do {
      const page = await this.#client.send(
        new ListObjectsV2Command({
          Bucket: this.#location.bucket,
          Prefix: this.#location.prefix,
          ContinuationToken: token,
        }),
      );
      for (const object of page.Contents ?? []) {
        if (object.Key === undefined) continue;
        yield {
          name: object.Key.slice(this.#location.prefix.length),
          lastModified: object.LastModified ?? new Date(0),
          bytes: object.Size ?? 0,
        };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token !== undefined);
  }

  /** Releases the client's sockets. */
  close(): void {
    this.#client.destroy();
  }
}
