// The render service's error catalogue (docs/errors.md): the page lists every entry as the code
// has it. The route tests check that real answers carry their code in Havn-Error-Code.
import { HttpError } from '@havn/shared';
import { describe, expect, it } from 'vitest';
import { expectCodesWellFormed, expectErrorDocs } from '../../../test-support/error-docs.js';
import { ofInput, renderErrors } from './errors.js';

describe('the render error catalogue', () => {
  it('is listed in docs/errors.md as it is (UPDATE_ERROR_DOCS=1 rewrites the list)', async () => {
    await expectErrorDocs({
      name: 'render',
      source: 'packages/render/src/errors.ts',
      entries: renderErrors.entries,
    });
  });

  it('has one status per code and no code twice', () => {
    expectCodesWellFormed('RENDER', renderErrors.entries);
  });

  it('fills the slots of a template and names the error by code', () => {
    const err = renderErrors.error('QUEUE_FULL', { ms: 250, slots: 2 });
    expect(err).toBeInstanceOf(HttpError);
    expect(err.status).toBe(503);
    expect(err.code).toBe('RENDER_QUEUE_FULL');
    expect(err.message).toBe('render queue full: no slot free within 250 ms (MAX_CONCURRENCY 2)');
    expect(renderErrors.nameOf(err)).toBe('QUEUE_FULL');
    expect(renderErrors.nameOf(new HttpError(503, 'render queue full'))).toBeUndefined();
    expect(renderErrors.nameOf(new Error('x'))).toBeUndefined();
    // Another catalogue's code, or one this catalogue does not have.
    expect(renderErrors.nameOf(new HttpError(404, 'x', 'FORMS_FORM_NOT_FOUND'))).toBeUndefined();
    expect(renderErrors.nameOf(new HttpError(404, 'x', 'RENDER_NOPE'))).toBeUndefined();
    expect(renderErrors.nameOf(new HttpError(404, 'x', 'RENDER_toString'))).toBeUndefined();
  });

  it('names the input of a merge without losing what failed', () => {
    const err = ofInput(2, renderErrors.error('URL_CREDENTIALS', { field: 'url' }));
    expect(err.status).toBe(400);
    expect(err.code).toBe('RENDER_URL_CREDENTIALS');
    expect(err.message).toBe('inputs[2]: url must not carry user:password credentials');
  });
});
