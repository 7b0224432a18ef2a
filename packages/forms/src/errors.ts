import { errorCatalogue } from '@havn/shared';

// Every error the forms server answers on purpose, by code (docs/errors.md lists them, generated
// from here). Throw `formsErrors.error('NAME', { slots })`; read `err.code`, never the message.
export const formsErrors = errorCatalogue('FORMS', {
  // authentication and access
  TOKEN_MISSING: { status: 401, message: 'missing bearer token' },
  TOKEN_INVALID: { status: 401, message: 'invalid token' },
  ORG_FORBIDDEN: {
    status: 403,
    message: 'this token does not grant access to organisation {org}',
  },
  ADMIN_ONLY: { status: 403, message: 'only the admin token can {action}' },
  HOST_REFUSED: { status: 403, message: '{reason}' },
  FILE_LINK_INVALID: { status: 403, message: 'this file link is not valid, or it has expired' },
  SETUP_CLOSED: {
    status: 404,
    message:
      'setup is closed: there is no setup link to use (organisations exist already, or the link expired)',
  },
  SETUP_LINK_INVALID: {
    status: 403,
    message: 'this setup link is not valid: it was used, it expired, or it was mistyped',
  },
  SETUP_LIMITED: {
    status: 429,
    message: 'too many wrong setup codes from this address; retry in {seconds} s',
  },

  // things that are not there
  ORG_NOT_FOUND: { status: 404, message: 'organisation {org} not found' },
  ORG_SLUG_TAKEN: { status: 409, message: 'organisation slug {slug} is taken' },
  TOKEN_NOT_FOUND: { status: 404, message: 'token {id} not found' },
  FORM_NOT_FOUND: { status: 404, message: 'form {org}/{form} not found' },
  FORM_HAS_NO_DEFINITION: { status: 404, message: 'form {org}/{form} has no definition yet' },
  FORM_NOT_READY: { status: 409, message: 'form has no definition yet' },
  DEFINITION_VERSION_NOT_FOUND: {
    status: 404,
    message: 'form {org}/{form} has no definition version {version}',
  },
  SUBMISSION_NOT_FOUND: { status: 404, message: 'submission {id} not found' },
  FILE_NOT_FOUND: { status: 404, message: 'file {file} of submission {id} not found' },
  DELIVERY_NOT_FOUND: { status: 404, message: 'delivery {id} not found' },
  DELIVERY_DROPPED: {
    status: 409,
    message: 'delivery {id} was dropped: its push subscription is gone',
  },
  POW_NOT_USED: { status: 409, message: 'form {org}/{form} does not use proof of work' },

  // a request that is not well formed
  REQUEST_INVALID: { status: 400, message: '{problem}' },
  BODY_NOT_JSON: { status: 400, message: 'body is not valid JSON' },
  BODY_NOT_JSON_TYPE: {
    status: 415,
    message: 'body must be JSON (Content-Type: application/json)',
  },
  EXPORT_DATE_INVALID: {
    status: 400,
    message:
      '{name} must be an ISO 8601 date or date-time, like 2026-01-31 or 2026-01-31T12:00:00Z (got {value})',
  },
  EXPORT_RANGE_INVALID: {
    status: 400,
    message: 'since must be before until (got {since} and {until})',
  },
  WEBHOOK_NOT_OF_FORM: {
    status: 400,
    message: 'url is not one of the webhooks of form {org}/{form}',
  },
  PUSH_ENDPOINT_NOT_URL: { status: 400, message: 'endpoint: not a URL' },
  PUSH_ENDPOINT_NOT_HTTPS: { status: 400, message: 'endpoint: must be an https URL' },
  PUSH_KEY_INVALID: {
    status: 400,
    message: 'keys.p256dh: must be an uncompressed P-256 public key (base64url)',
  },
  PUSH_AUTH_INVALID: { status: 400, message: 'keys.auth: must be a 16-byte secret (base64url)' },

  // a form's settings
  DEFINITION_INVALID: { status: 400, message: '{problem}' },
  SPAM_PROTECTION_INVALID: {
    status: 400,
    message: 'spamProtection must be "honeypot" or "pow"',
  },
  NOTIFY_NOT_ARRAY: { status: 400, message: 'notify must be an array of email addresses' },
  NOTIFY_TOO_MANY: { status: 400, message: 'notify must list at most {max} addresses' },
  NOTIFY_ADDRESS_INVALID: {
    status: 400,
    message:
      'notify/{index} must be an email address like name@example.com of at most 254 characters (got {value})',
  },
  NOTIFY_ADDRESS_TWICE: { status: 400, message: 'notify/{index}: {address} is listed twice' },
  RETENTION_INVALID: {
    status: 400,
    message: 'retentionDays must be a whole number of days from 1 to 36500, or null',
  },
  REDIRECT_URL_NOT_ABSOLUTE: {
    status: 400,
    message: 'redirectUrl must be an absolute URL (got {value})',
  },
  REDIRECT_URL_NOT_ALLOWED: {
    status: 400,
    message: "redirectUrl must be on one of the form's allowedOrigins (got {value})",
  },
  ORIGIN_WILDCARD: {
    status: 400,
    message:
      'allowedOrigins/{index}: wildcards are not supported; list each origin exactly, like https://www.example.com (got {value})',
  },
  ORIGIN_INVALID: { status: 400, message: 'allowedOrigins/{index}: not an origin ({value})' },
  ORIGIN_NOT_EXACT: {
    status: 400,
    message:
      'allowedOrigins/{index}: must be an exact origin like https://example.com (got {value})',
  },
  WEBHOOK_URL_INVALID: { status: 400, message: 'webhooks/{index}/url: not a URL' },
  WEBHOOK_URL_SCHEME: { status: 400, message: 'webhooks/{index}/url: must be http or https' },
  WEBHOOK_URL_CREDENTIALS: {
    status: 400,
    message: 'webhooks/{index}/url: must not carry credentials',
  },

  // public ingest
  ORIGIN_REQUIRED: { status: 403, message: 'an Origin header is required' },
  ORIGIN_NOT_ALLOWED: { status: 403, message: 'origin {origin} is not allowed for this form' },
  CHALLENGES_LIMITED: { status: 429, message: 'too many challenges; retry in {seconds} s' },
  SUBMISSIONS_LIMITED: { status: 429, message: 'too many submissions; retry in {seconds} s' },
  BODY_NOT_ANSWERS: { status: 400, message: 'body must be a JSON object of answers' },
  SUBMIT_FIELDS_NOT_OBJECT: { status: 400, message: 'submitFields must be an object' },
  SUBMIT_FIELD_INVALID: {
    status: 400,
    message: 'submitFields.{name} must be a string, number, boolean or null',
  },
  SUBMIT_FIELDS_NOT_FLAT: {
    status: 400,
    message: 'submitFields must be sent as submitFields.<name> fields',
  },
  ANSWER_TYPE_INVALID: {
    status: 400,
    message: '{name} must be a string, number, boolean, null or an array of strings',
  },
  ANSWER_NOT_SINGLE: {
    status: 400,
    message: '{name} must be a single value; only a multiple-choice question takes an array',
  },
  ANSWER_REQUIRED: { status: 400, message: '{name} is required' },
  FILE_ANSWER_NOT_MULTIPART: {
    status: 400,
    message: '{name} is a file question: send its files as multipart/form-data',
  },
  MULTIPART_INVALID: { status: 400, message: 'body is not valid multipart/form-data' },
  BODY_CUT_OFF: { status: 400, message: 'the request body was cut off' },
  BODY_TOO_LARGE: {
    status: 413,
    message: 'body is too large: more than {bytes} bytes without files',
  },
  FIELDS_TOO_LARGE: {
    status: 413,
    message: 'body is too large: its fields may have {bytes} bytes',
  },
  FILES_TOO_LARGE: {
    status: 413,
    message:
      'body is too large: files may have {total} bytes together (UPLOAD_MAX_TOTAL_BYTES) and the rest {fields}',
  },
  TOO_MANY_PARTS: { status: 413, message: 'body has too many parts' },
  FILE_PART_UNEXPECTED: {
    status: 415,
    message: '{question} is a file, but not a file question of this form',
  },
  TOO_MANY_FILES: { status: 400, message: '{question} takes at most {max} file(s)' },
  FILE_TOO_LARGE: {
    status: 413,
    message: '{question}: "{name}" is larger than {cap} bytes (maxBytes)',
  },
  FILE_TYPE_NOT_ACCEPTED: {
    status: 400,
    message: '{question}: "{name}" is {type} by its contents, which is not one of {accept}',
  },
  FILE_TYPE_MISMATCH: {
    status: 400,
    message: '{question}: "{name}" is {type} by its contents, not what its name says',
  },
});
