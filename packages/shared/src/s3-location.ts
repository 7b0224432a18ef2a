// Where S3-compatible storage is and how to reach it, parsed from configuration without loading
// the AWS SDK (the client itself is `@havn/shared/object-store`).

/** Where objects live: `s3://bucket/prefix`. */
export interface S3Location {
  bucket: string;
  /** Key prefix, empty or ending in `/`. */
  prefix: string;
}

/** The standard AWS_* settings; unset ones fall back to the SDK's own chain (instance roles). */
export interface S3Settings {
  /** AWS_ENDPOINT_URL: another S3-compatible service; addressing is then path-style. */
  endpoint?: string | undefined;
  /** AWS_REGION; `us-east-1` when unset. */
  region?: string | undefined;
  /** AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, both or neither. */
  credentials?: { accessKeyId: string; secretAccessKey: string } | undefined;
}

/** `s3://bucket/prefix` → the location, or undefined when the text is not such a URL. */
export function parseS3Url(text: string): S3Location | undefined {
  const m = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(text);
  if (!m?.[1]) return undefined;
  const path = (m[2] ?? '').replace(/^\/+|\/+$/g, '');
  return { bucket: m[1], prefix: path === '' ? '' : `${path}/` };
}
