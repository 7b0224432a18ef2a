// The admin API calls of the management views (docs/forms.md, "Forms and definitions", "Organisations
// and tokens"). Every change to a form is the server's PATCH, which changes only the fields it
// names: a view sends only what it edits.
import type { DefinitionVersionsAnswer } from '@havn/forms/wire';
import { type Api, ApiError, type FormRecord, type TokenInfo } from '../api.js';

const formPath = (form: string) => `/forms/${encodeURIComponent(form)}`;

function putJson<T>(api: Api, path: string, body: unknown, method = 'PUT'): Promise<T> {
  return api.json<T>(path, {
    method,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

export async function readForm(api: Api, form: string): Promise<FormRecord> {
  return (await api.formInfo(form)).form;
}

/** Creates a form; refuses an id that is taken (a PUT would silently replace that form). */
export async function createForm(
  api: Api,
  id: string,
  fields: { name: string; description: string },
): Promise<FormRecord> {
  try {
    await readForm(api, id);
    throw new ApiError(409, `A form with the id "${id}" exists already. Choose another id.`);
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 404) throw err;
  }
  return putJson<FormRecord>(api, formPath(id), { ...fields, allowedOrigins: [], webhooks: [] });
}

export async function deleteForm(api: Api, form: string): Promise<void> {
  await api.json(formPath(form), { method: 'DELETE' });
}

/** Stores a new definition version; the server keeps the version when nothing changed. */
export async function saveDefinition(api: Api, form: string, definition: unknown): Promise<number> {
  const { version } = await putJson<{ version: number }>(
    api,
    `${formPath(form)}/definition`,
    definition,
  );
  return version;
}

/** Every version of the form's definition with when it was saved, newest first. */
export async function definitionVersions(
  api: Api,
  form: string,
): Promise<DefinitionVersionsAnswer['versions']> {
  return (await api.json<DefinitionVersionsAnswer>(`${formPath(form)}/definitions`)).versions;
}

export function definitionVersion(api: Api, form: string, version: number): Promise<unknown> {
  return api.json(`${formPath(form)}/definitions/${String(version)}`);
}

export async function tokens(api: Api): Promise<TokenInfo[]> {
  return (await api.json<{ tokens: TokenInfo[] }>('/tokens')).tokens;
}

export function mintToken(api: Api, label: string): Promise<TokenInfo & { token: string }> {
  return putJson(api, '/tokens', { label }, 'POST');
}

export async function revokeToken(api: Api, id: string): Promise<void> {
  await api.json(`/tokens/${encodeURIComponent(id)}`, { method: 'DELETE' });
}

/** The form ids the server accepts (docs/forms.md, "Organisations and tokens"). */
export const FORM_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

export { idFromName } from '../slug.js';

/** The same origin check as the server's: scheme://host[:port] exactly, http or https. */
export function originProblem(value: string): string | null {
  // The server matches origins exactly and refuses wildcards (docs/forms.md#forms-and-definitions).
  if (value.includes('*')) {
    return 'Wildcards are not supported: add each origin exactly, like https://www.example.com.';
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'This is not an origin. Write it like https://www.example.com.';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return 'An origin starts with https:// (or http://).';
  }
  if (url.origin !== value) {
    return `Write the origin alone, with no path or trailing slash: ${url.origin}`;
  }
  return null;
}

/** The same webhook URL check as the server's. */
export function webhookUrlProblem(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'This is not a URL. Write it like https://example.com/hooks/havn.';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'Use an http or https URL.';
  if (url.username || url.password) return 'The URL must not carry a user name or password.';
  return null;
}
