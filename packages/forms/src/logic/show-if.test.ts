// docs/definition-format.md#steps-and-conditions: the evaluator's table (shared with the runtime's
// tests), the same table through the real server's ingest, and the PUT checks.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { client, startForms, type RunningForms } from '../test-support/forms-server.js';
import { caseDefinition, SHOW_IF_CASES } from './show-if.cases.js';
import { visibility } from './show-if.js';

const site = 'http://site.test';
const form = '/api/orgs/acme/forms/logic';

describe('the show-if evaluator', () => {
  test.each(SHOW_IF_CASES)('$name', ({ showIf, answers, shown }) => {
    expect(visibility(caseDefinition(showIf), answers).questions.has('target')).toBe(shown);
  });

  test('a hidden question counts as unanswered for the conditions after it', () => {
    const def = {
      questions: [
        { logicalName: 'kind' },
        { logicalName: 'company', showIf: { question: 'kind', equals: 'business' } },
        { logicalName: 'size', showIf: { question: 'company', answered: true } },
      ],
    };
    const v = visibility(def, { kind: 'private', company: 'Acme' });
    expect([...v.questions]).toEqual(['kind']);
  });

  test('a page whose condition fails hides all its questions', () => {
    const def = {
      questions: [{ logicalName: 'kind' }, { logicalName: 'size' }, { logicalName: 'end' }],
      pages: [
        { questions: ['kind'] },
        { questions: ['size'], showIf: { question: 'kind', equals: 'business' } },
        { questions: ['end'] },
      ],
    };
    expect(visibility(def, { kind: 'private', size: '10' })).toEqual({
      questions: new Set(['kind', 'end']),
      pages: [true, false, true],
    });
  });
});

describe('steps and conditions on the server', () => {
  let s: RunningForms;
  let admin: ReturnType<typeof client>;
  const submit = (answers: Record<string, unknown>) =>
    client(s.url, null)<{ id: string; error: string }>('POST', `${form}/submissions`, answers, {
      origin: site,
    });
  const putDefinition = (definition: unknown) => admin('PUT', `${form}/definition`, definition);

  beforeAll(async () => {
    s = await startForms({ config: { ingestRateLimitPerMinute: 0 } });
    admin = client(s.url);
    await admin('POST', '/api/orgs', { slug: 'acme', name: 'Acme' });
    const put = await admin('PUT', form, { name: 'Logic', allowedOrigins: [site] });
    expect(put.status).toBe(200);
  });
  afterAll(async () => {
    await s.close();
  });

  // The runtime's table, asked of ingest: a required target is refused when shown and missing,
  // and accepted (its answer dropped) when hidden.
  test('every case of the table, through ingest', async () => {
    for (const c of SHOW_IF_CASES) {
      expect((await putDefinition(caseDefinition(c.showIf, true))).status, c.name).toBe(200);
      const missing = await submit(c.answers);
      if (c.shown) {
        expect(missing, c.name).toMatchObject({
          status: 400,
          body: { error: 'target is required' },
        });
      } else expect(missing.status, c.name).toBe(200);
      const given = await submit({ ...c.answers, target: 'x' });
      expect(given.status, c.name).toBe(200);
      const record = await admin<{ answers: Record<string, unknown> }>(
        'GET',
        `${form}/submissions/${given.body.id}`,
      );
      expect('target' in record.body.answers, c.name).toBe(c.shown);
    }
  });

  test('hidden answers are kept under submitFields.hiddenAnswers only when the form says so', async () => {
    const def = caseDefinition({ question: 'kind', equals: 'business' });
    await putDefinition({ ...def, keepHiddenAnswers: true });
    const r = await submit({ kind: 'private', target: 'secret', extra: 'kept' });
    expect(r.status).toBe(200);
    const record = await admin('GET', `${form}/submissions/${r.body.id}`);
    expect(record.body).toMatchObject({
      answers: { kind: 'private', extra: 'kept' },
      submitFields: { hiddenAnswers: { target: 'secret' } },
    });
    expect(record.body.answers).not.toHaveProperty('target');
  });

  test('a plain HTML post is judged the same way', async () => {
    await putDefinition(caseDefinition({ question: 'seats', equals: 5 }, true));
    const post = (body: string) =>
      fetch(`${s.url}${form}/submissions`, {
        method: 'POST',
        redirect: 'manual',
        headers: { origin: site, 'content-type': 'application/x-www-form-urlencoded' },
        body,
      });
    const refused = await post('seats=5');
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({ error: 'target is required' });
    // Refused on the writer thread (SQLite) or beside the commit (PostgreSQL): the code comes back.
    expect(refused.headers.get('havn-error-code')).toBe('FORMS_ANSWER_REQUIRED');
    expect((await post('seats=4')).status).toBe(303);
  });

  test('a page condition hides its required questions', async () => {
    const r = await putDefinition({
      intro: { title: 'Steps' },
      questions: [
        {
          logicalName: 'kind',
          type: 'choice',
          label: 'Kind',
          required: true,
          options: [
            { value: 'business', label: 'Business' },
            { value: 'private', label: 'Private' },
          ],
        },
        { logicalName: 'size', type: 'number', label: 'Company size', required: true },
        { logicalName: 'terms', type: 'consent', label: 'Terms', required: true },
      ],
      pages: [
        { title: 'You', questions: ['kind'] },
        {
          title: 'Company',
          questions: ['size'],
          showIf: { question: 'kind', equals: 'business' },
        },
        { questions: ['terms'] },
      ],
    });
    expect(r.status).toBe(200);
    expect((await submit({ kind: 'private', terms: true })).status).toBe(200);
    expect((await submit({ kind: 'business', terms: true })).body).toEqual({
      error: 'size is required',
    });
    // An unticked required consent box is no answer.
    expect((await submit({ kind: 'private', terms: false })).body).toEqual({
      error: 'terms is required',
    });
    // Spam is stored, never refused (docs/forms.md#spam), required answers or not.
    const spam = await submit({ kind: 'business', submitFields: { _gotcha: 'bot' } });
    expect(spam.status).toBe(200);
  });

  test.each([
    [
      'an unknown question',
      { question: 'nope', equals: 'x' },
      'questions/5/showIf/question: unknown question "nope"',
    ],
    [
      'its own question',
      { not: { question: 'target', answered: true } },
      'questions/5/showIf/not/question: "target" refers to its own question (a cycle)',
    ],
    [
      'a bad operator',
      { question: 'kind', is: 'x' },
      'questions/5/showIf: needs exactly one of equals, notEquals, in, answered beside "question"',
    ],
    ['an empty all', { all: [] }, 'questions/5/showIf/all: must be an array of 1 to 50 conditions'],
    [
      'a bad in',
      { any: [{ question: 'kind', in: [{}] }] },
      'questions/5/showIf/any/0/in: must be a non-empty array of strings, numbers or booleans',
    ],
  ])('PUT refuses a condition naming %s, with its path', async (_, showIf, error) => {
    const r = await putDefinition(caseDefinition(showIf as never));
    expect(r).toMatchObject({ status: 400, body: { error } });
  });

  test('PUT refuses a later question, a cycle between two questions and bad pages', async () => {
    const q = (logicalName: string, showIf?: unknown) => ({
      logicalName,
      type: 'text',
      label: logicalName,
      ...(showIf ? { showIf } : {}),
    });
    const cases: [unknown, string][] = [
      [
        { questions: [q('a', { question: 'b', answered: true }), q('b')] },
        'questions/0/showIf/question: "b" is not an earlier question; a condition may only name questions shown before it',
      ],
      [
        {
          questions: [
            q('a', { question: 'b', answered: true }),
            q('b', { question: 'a', answered: true }),
          ],
        },
        'questions/0/showIf/question: "b" is not an earlier question; a condition may only name questions shown before it',
      ],
      [
        {
          questions: [q('a'), q('b')],
          pages: [
            { questions: ['b'], showIf: { question: 'a', answered: true } },
            { questions: ['a'] },
          ],
        },
        'pages/0/showIf/question: "a" is not an earlier question; a condition may only name questions shown before it',
      ],
      [
        { questions: [q('a'), q('b')], pages: [{ questions: ['a'] }] },
        'pages: question "b" is on no page',
      ],
      [
        { questions: [q('a')], pages: [{ questions: ['a'] }, { questions: ['a'] }] },
        'pages/1/questions/0: "a" is already on pages/0',
      ],
      [
        { questions: [q('a')], pages: [{ questions: ['z'] }] },
        'pages/0/questions/0: unknown question "z"',
      ],
    ];
    for (const [def, error] of cases) {
      const r = await putDefinition({ intro: { title: 'T' }, ...(def as object) });
      expect(r.body).toEqual({ error });
      // The form PUT names the same path under definition/.
      const put = await admin('PUT', form, {
        name: 'Logic',
        allowedOrigins: [site],
        definition: { intro: { title: 'T' }, ...(def as object) },
      });
      expect(put.body).toEqual({ error: `definition/${error}` });
    }
  });

  test('the published schema describes showIf and pages', async () => {
    const r = await client(s.url, null)<Record<string, Record<string, unknown>>>(
      'GET',
      '/schema/definition.json',
    );
    expect(r.body.$defs).toHaveProperty('condition.oneOf');
    expect(JSON.stringify(r.body.properties)).toContain('"showIf":{"$ref":"#/$defs/condition"}');
    expect(r.body.properties).toHaveProperty('pages.items.properties.questions');
  });
});
