// The forms server's error catalogue (docs/errors.md): the page lists every entry as the code
// has it, and a real server names the code of what it answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectCodesWellFormed, expectErrorDocs } from '../../../test-support/error-docs.js';
import { formsErrors } from './errors.js';
import { adminToken, client, startForms, type RunningForms } from './test-support/forms-server.js';

describe('the forms error catalogue', () => {
  it('is listed in docs/errors.md as it is (UPDATE_ERROR_DOCS=1 rewrites the list)', async () => {
    await expectErrorDocs({
      name: 'forms',
      source: 'packages/forms/src/errors.ts',
      entries: formsErrors.entries,
    });
  });

  it('has one status per code and no code twice', () => {
    expectCodesWellFormed('FORMS', formsErrors.entries);
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
