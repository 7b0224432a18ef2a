// The forms server's error catalogue (docs/errors.md): the page lists every entry as the code
// has it, and a real server names the code of what it answers.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { format, resolveConfig } from 'prettier';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formsErrors } from './errors.js';
import { adminToken, client, startForms, type RunningForms } from './test-support/forms-server.js';

const page = new URL('../../../docs/errors.md', import.meta.url);
const begin = '<!-- forms errors: generated from packages/forms/src/errors.ts -->';
const end = '<!-- end of forms errors -->';

/** The table docs/errors.md must hold between the markers. */
function table(): string {
  const rows = formsErrors.entries.map(
    (e) => `| \`${e.code}\` | ${String(e.status)} | \`${e.message.replaceAll('|', '\\|')}\` |`,
  );
  return ['| code | status | message |', '| --- | --- | --- |', ...rows].join('\n');
}

describe('the forms error catalogue', () => {
  it('is listed in docs/errors.md as it is (UPDATE_ERROR_DOCS=1 rewrites the list)', async () => {
    const text = readFileSync(page, 'utf8');
    const [before, rest] = text.split(begin);
    const after = rest?.split(end)[1];
    expect(after, `docs/errors.md lacks the markers ${begin} … ${end}`).toBeDefined();
    // As the repository's Prettier writes the page, so that the check and the lint agree.
    const path = fileURLToPath(page);
    const expected = await format(`${before ?? ''}${begin}\n\n${table()}\n\n${end}${after ?? ''}`, {
      ...(await resolveConfig(path)),
      filepath: path,
    });
    if (process.env.UPDATE_ERROR_DOCS === '1') writeFileSync(page, expected);
    else expect(text).toBe(expected);
  });

  it('has one status per code and no code twice', () => {
    const codes = formsErrors.entries.map((e) => e.code);
    expect(new Set(codes).size).toBe(codes.length);
    for (const e of formsErrors.entries) expect(e.code).toMatch(/^FORMS_[A-Z0-9_]+$/);
  });
});

describe('a forms server names the code of its errors', () => {
  let s: RunningForms;
  beforeAll(async () => {
    s = await startForms();
  });
  afterAll(async () => {
    await s.close();
  });

  it('in the Havn-Error-Code header, with the body unchanged', async () => {
    const anonymous = await fetch(`${s.url}/api/orgs`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('havn-error-code')).toBe('FORMS_TOKEN_MISSING');
    expect(await anonymous.json()).toEqual({ error: 'missing bearer token' });

    const admin = client(s.url);
    await admin('POST', '/api/orgs', { slug: 'acme', name: 'Acme' });
    const missing = await fetch(`${s.url}/api/orgs/acme/forms/nope`, {
      headers: { authorization: `Bearer ${adminToken}` },
    });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('havn-error-code')).toBe('FORMS_FORM_NOT_FOUND');
    expect(await missing.json()).toEqual({ error: 'form acme/nope not found' });
  });

  it('and none for an error outside the catalogue (an unknown route)', async () => {
    const res = await fetch(`${s.url}/api/nowhere`);
    expect(res.status).toBe(404);
    expect(res.headers.get('havn-error-code')).toBeNull();
  });
});
