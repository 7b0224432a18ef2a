import { randomToken } from '@havn/shared';
import type { FormWrite, Webhook } from '../store/forms.store.js';
import type { SpamProtection } from '../store/schema.js';
import { isEmailAddress } from '../smtp-config.js';
import type { FormBodyInput } from '../wire/forms.js';
import { validateDefinition } from './definition-validator.js';
import { formsErrors } from '../errors.js';

/** A form PUT or PATCH body as its schema (wire/forms.ts) lets it through. */
export type FormBody = FormBodyInput;

/** docs/forms.md#spam: the honeypot alone (the default) or a proof-of-work solution as well. */
function checkSpamProtection(value: unknown): SpamProtection {
  if (value === null || value === undefined) return 'honeypot';
  if (value !== 'honeypot' && value !== 'pow') {
    throw formsErrors.error('SPAM_PROTECTION_INVALID');
  }
  return value;
}

const maxRecipients = 20;

/**
 * docs/forms.md#email-notices: up to 20 distinct addresses, each a plain `name@domain` of at most
 * 254 characters, so nothing but an address can reach the mail's To header.
 */
function checkNotify(value: unknown): string[] {
  if (value === null || value === undefined) return [];
  if (!Array.isArray(value)) throw formsErrors.error('NOTIFY_NOT_ARRAY');
  if (value.length > maxRecipients) {
    throw formsErrors.error('NOTIFY_TOO_MANY', { max: maxRecipients });
  }
  const seen = new Set<string>();
  return value.map((entry: unknown, index) => {
    if (typeof entry !== 'string' || !isEmailAddress(entry)) {
      const shown = typeof entry === 'string' ? entry.slice(0, 300) : typeof entry;
      throw formsErrors.error('NOTIFY_ADDRESS_INVALID', { index, value: JSON.stringify(shown) });
    }
    if (seen.has(entry.toLowerCase())) {
      throw formsErrors.error('NOTIFY_ADDRESS_TWICE', { index, address: entry });
    }
    seen.add(entry.toLowerCase());
    return entry;
  });
}

/** docs/forms.md#retention: whole days from 1 to 100 years, or null to keep everything. */
function checkRetention(value: unknown): number | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 36500) {
    throw formsErrors.error('RETENTION_INVALID');
  }
  return value;
}

/**
 * docs/forms.md#plain-html-posts: a plain HTML post is sent on to `redirectUrl`, which must be an
 * http(s) URL on one of the form's allowed origins, so the form cannot be used as an open
 * redirect.
 */
function checkRedirect(value: string | null | undefined, origins: string[]): string | null {
  if (value === undefined || value === null || value === '') return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw formsErrors.error('REDIRECT_URL_NOT_ABSOLUTE', { value });
  }
  if (!origins.includes(url.origin)) {
    throw formsErrors.error('REDIRECT_URL_NOT_ALLOWED', { value });
  }
  return value;
}

/** An origin as a browser sends it: scheme://host[:port], nothing else. */
function checkOrigin(value: string, index: number): string {
  // docs/forms.md#forms-and-definitions: wildcards are refused, not matched. The gate compares
  // origins exactly, so a pattern stored as-is would match nothing and fail silently.
  if (value.includes('*')) {
    throw formsErrors.error('ORIGIN_WILDCARD', { index, value });
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw formsErrors.error('ORIGIN_INVALID', { index, value });
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== value) {
    throw formsErrors.error('ORIGIN_NOT_EXACT', { index, value });
  }
  return value;
}

function checkWebhook(hook: { url: string; secret?: string }, index: number): Webhook {
  let url: URL;
  try {
    url = new URL(hook.url);
  } catch {
    throw formsErrors.error('WEBHOOK_URL_INVALID', { index });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw formsErrors.error('WEBHOOK_URL_SCHEME', { index });
  }
  if (url.username || url.password) {
    throw formsErrors.error('WEBHOOK_URL_CREDENTIALS', { index });
  }
  // No secret given: generate one in the Standard Webhooks form, shown in the answer.
  const secret = hook.secret ?? `whsec_${Buffer.from(randomToken(24)).toString('base64')}`;
  return { url: hook.url, secret };
}

/** docs/forms.md#forms-and-definitions: null, {} and undefined leave the definition alone. */
export function isNonEmptyDefinition(v: unknown): boolean {
  return typeof v === 'object' && v !== null && Object.keys(v).length > 0;
}

/**
 * docs/forms.md#forms-and-definitions: a PUT replaces every field (omitted means empty; an omitted
 * name falls back to the form id); the definition only when present and non-empty, and then
 * validated against docs/definition-format.md.
 */
export function toFormWrite(formId: string, body: FormBody): FormWrite {
  const definition = isNonEmptyDefinition(body.definition) ? body.definition : undefined;
  if (definition !== undefined) validateDefinition(definition, 'definition');
  const allowedOrigins = (body.allowedOrigins ?? []).map(checkOrigin);
  return {
    name: body.name ?? formId,
    description: body.description ?? '',
    allowedOrigins,
    webhooks: (body.webhooks ?? []).map(checkWebhook),
    redirectUrl: checkRedirect(body.redirectUrl, allowedOrigins),
    retentionDays: checkRetention(body.retentionDays),
    notify: checkNotify(body.notify),
    spamProtection: checkSpamProtection(body.spamProtection),
    definition: definition ?? undefined,
  };
}

/**
 * PATCH: only the fields the body names, each checked as in a PUT; a `definition` that is null or
 * empty changes nothing, as in a PUT. Webhooks named without a secret get a generated one.
 */
export function toFormPatch(
  body: FormBody,
  current: Pick<FormWrite, 'allowedOrigins' | 'redirectUrl'>,
): Partial<FormWrite> {
  const patch: Partial<FormWrite> = {};
  if (body.name !== undefined) patch.name = body.name;
  if (body.description !== undefined) patch.description = body.description;
  if (body.allowedOrigins !== undefined)
    patch.allowedOrigins = body.allowedOrigins.map(checkOrigin);
  if (body.webhooks !== undefined) patch.webhooks = body.webhooks.map(checkWebhook);
  // The redirect must stay on an allowed origin, whichever of the two this changes.
  const redirect = checkRedirect(
    body.redirectUrl === undefined ? current.redirectUrl : body.redirectUrl,
    patch.allowedOrigins ?? current.allowedOrigins,
  );
  if (body.redirectUrl !== undefined) patch.redirectUrl = redirect;
  if (body.retentionDays !== undefined) patch.retentionDays = checkRetention(body.retentionDays);
  if (body.notify !== undefined) patch.notify = checkNotify(body.notify);
  if (body.spamProtection !== undefined) {
    patch.spamProtection = checkSpamProtection(body.spamProtection);
  }
  if (isNonEmptyDefinition(body.definition)) {
    validateDefinition(body.definition, 'definition');
    patch.definition = body.definition;
  }
  return patch;
}
