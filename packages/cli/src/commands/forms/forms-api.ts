// The forms server as the forms commands see it: the client for the profile (or --url and
// HAVN_FORMS_TOKEN), the organisation the token belongs to, and the few answers they read
// (docs/forms.md#endpoints is the contract; only the fields used here are typed).
import { resolveService } from '../../config/service-config.js';
import type { CliContext } from '../../context.js';
import { CliError, UsageError } from '../../errors.js';
import { isRecord } from '../../upstream/coerce.js';
import { ServiceClient, ServiceRefusal } from '../../upstream/service-client.js';

export interface FormsOptions {
  readonly url?: string;
  readonly profile?: string;
  readonly org?: string;
}

export interface FormsApi {
  readonly client: ServiceClient;
  readonly org: string;
  /** `/api/orgs/<org>/forms/<form>` plus `rest`, each part escaped. */
  formPath(form: string, rest?: string): string;
}

const FORM_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
const ORG_SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** The client and the organisation: --org, else the token's own (an org token sees only its own). */
export async function formsApi(ctx: CliContext, o: FormsOptions): Promise<FormsApi> {
  if (o.org !== undefined && !ORG_SLUG.test(o.org)) {
    throw new UsageError(`--org must be an organisation slug (a-z, 0-9, '-'); got '${o.org}'.`);
  }
  const client = new ServiceClient(await resolveService(ctx, 'forms', o));
  const org = o.org ?? (await tokenOrg(client));
  const base = `/api/orgs/${encodeURIComponent(org)}`;
  return {
    client,
    org,
    formPath: (form, rest = '') => `${base}/forms/${encodeURIComponent(form)}${rest}`,
  };
}

/** A form id as typed, or a usage error naming the rule (docs/forms.md#organisations-and-tokens). */
export function parseFormId(form: string): string {
  if (!FORM_ID.test(form)) {
    throw new UsageError(
      `<form> must be a form id (letters, digits, '_' and '-', up to 64); got '${form}'.`,
    );
  }
  return form;
}

/** Re-throws a 404 as "form <org>/<form> was not found", which says what to check. */
export async function onForm<T>(api: FormsApi, form: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof ServiceRefusal && error.status === 404) {
      throw new CliError(
        `Form ${api.org}/${form} was not found. havn forms list shows the forms of ${api.org}.`,
      );
    }
    throw error;
  }
}

async function tokenOrg(client: ServiceClient): Promise<string> {
  const answer = await client.json('GET', '/api/orgs');
  const orgs = isRecord(answer) && Array.isArray(answer.orgs) ? answer.orgs : [];
  const slugs = orgs.flatMap((o: unknown) =>
    isRecord(o) && typeof o.slug === 'string' ? [o.slug] : [],
  );
  const only = slugs[0];
  if (slugs.length === 1 && only !== undefined) return only;
  if (slugs.length === 0) throw new CliError('The forms token sees no organisation.');
  // The admin token sees every organisation: which one is meant cannot be guessed.
  throw new UsageError(
    `This token sees ${String(slugs.length)} organisations (${slugs.slice(0, 5).join(', ')}${slugs.length > 5 ? ', …' : ''}); give --org <slug>.`,
  );
}
