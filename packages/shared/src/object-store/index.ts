// `@havn/shared/object-store`: its own entry, so that a service that keeps no objects in S3 never
// loads the AWS SDK.
export {
  S3ObjectStore,
  parseS3Url,
  type S3Location,
  type S3Settings,
  type StoredObject,
} from './s3-object-store.js';
