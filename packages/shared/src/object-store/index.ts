// `@havn/shared/object-store`: its own entry, so that a service that keeps no objects in S3 never
// loads the AWS SDK.
export { S3ObjectStore, type StoredObject } from './s3-object-store.js';
export { parseS3Url, type S3Location, type S3Settings } from '../s3-location.js';
