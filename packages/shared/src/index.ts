export {
  ConfigError,
  parseEnv,
  collectEnv,
  envInt,
  envFlag,
  envList,
  envAddressList,
  envOneOf,
  envMatching,
  envUrl,
  envString,
} from './config.js';
export { createLogger, redactUrl, type Logger } from './logger.js';
export {
  ERROR_CODE_HEADER,
  HttpError,
  installErrorHandler,
  type ErrorBody,
  type ErrorHandlerOptions,
  type Unavailable,
} from './http-errors.js';
export {
  errorCatalogue,
  type Catalogue,
  type CodedError,
  type ErrorEntry,
} from './error-catalogue.js';
export { tokensEqual, bearerToken, randomToken, sha256Hex, queryToken } from './token.js';
export {
  classifyAddress,
  canonicalAddress,
  isIpLiteral,
  type RefusedRange,
} from './address-policy.js';
export {
  checkHost,
  guardedLookup,
  isAllowedHost,
  HostRefusedError,
  type HostPolicy,
  type HostVerdict,
  type Resolver,
} from './host-guard.js';
export { closeKeepAliveOnClose, closeOnSignals } from './lifecycle.js';
export { isRecord } from './is-record.js';
export {
  PUBLIC_HOST_PATTERN,
  plainAddress,
  trustedHost,
  untrustedHost,
  type HostedRequest,
  type TrustedHosts,
} from './trusted-hosts.js';
export { configOrExit, checkPortOrExit, listenOrExit } from './startup.js';
export { parseS3Url, type S3Location, type S3Settings } from './s3-location.js';
