// The management views check definitions, origins and webhook URLs in the browser before they are
// sent; these checks must agree with the real forms server's. Each case is put to both, and both
// must accept it, or both refuse it at the same place.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../../test-support/build.js';
import { CONTACT_DEFINITION } from '../../test-support/definitions.js';
import { type Stack, startStack } from '../../test-support/stack.js';
import { originProblem, webhookUrlProblem } from './form-admin.js';
import { parseJson } from './json-lines.js';
import { checkDefinition } from './schema-check.js';

let stack: Stack;
let schema: Record<string, unknown>;

beforeAll(async () => {
  ensureBuilt();
  stack = await startStack([]);
  schema = (await (await fetch(`${stack.url}/schema/definition.json`)).json()) as Record<
    string,
    unknown
  >;
});
afterAll(async () => {
  await stack.close();
});

/** The server's verdict: null when it stores the definition, else the path its 400 names. */
async function serverSays(definition: unknown): Promise<string | null> {
  try {
    await stack.api('PUT', '/api/orgs/acme/forms/contact/definition', definition);
    return null;
  } catch (err) {
    const m = /: 400 \{"error":"([^:]*):/.exec(String(err));
    if (!m) throw err;
    return m[1] ?? '';
  }
}

const question = CONTACT_DEFINITION.questions[0]!;
const STEPS = {
  questions: [
    {
      logicalName: 'kind',
      type: 'choice',
      label: 'Kind',
      options: [
        { value: 'business', label: 'A business' },
        { value: 'private', label: 'Myself' },
      ],
    },
    {
      logicalName: 'company',
      type: 'text',
      label: 'Company',
      showIf: { question: 'kind', equals: 'business' },
    },
  ],
  pages: [{ title: 'You', questions: ['kind'] }, { questions: ['company'] }],
};
const withQuestion = (q: object) => ({ ...CONTACT_DEFINITION, questions: [q] });
const DEFINITIONS: [string, unknown][] = [
  ['the contact form', CONTACT_DEFINITION],
  ['no intro', { questions: [question] }],
  ['an empty title', { ...CONTACT_DEFINITION, intro: { title: '' } }],
  ['no questions', { ...CONTACT_DEFINITION, questions: [] }],
  ['an unknown type', withQuestion({ ...question, type: 'phone' })],
  ['an unknown field', withQuestion({ ...question, colour: 'red' })],
  ['a field of another type', withQuestion({ ...question, options: [] })],
  ['no label', withQuestion({ logicalName: 'x', type: 'text' })],
  ['a bad logicalName', withQuestion({ ...question, logicalName: 'a b' })],
  ['a negative minLength', withQuestion({ ...question, minLength: -1 })],
  ['a fractional maxLength', withQuestion({ ...question, maxLength: 2.5 })],
  ['a zero step', withQuestion({ logicalName: 'n', type: 'number', label: 'N', step: 0 })],
  ['a bad date', withQuestion({ logicalName: 'd', type: 'date', label: 'D', min: '1/2/2026' })],
  ['a choice without options', withQuestion({ logicalName: 'c', type: 'choice', label: 'C' })],
  [
    'an option without a label',
    withQuestion({ logicalName: 'c', type: 'choice', label: 'C', options: [{ value: 'a' }] }),
  ],
  ['a submitField that is not text', { ...CONTACT_DEFINITION, submitFields: { a: 1 } }],
  [
    'an image that is not http',
    { ...CONTACT_DEFINITION, intro: { title: 'T', image: { url: 'ftp://x', alt: '' } } },
  ],
  ['questions as an object', { ...CONTACT_DEFINITION, questions: {} }],
  ['a duplicate logicalName', { ...CONTACT_DEFINITION, questions: [question, question] }],
  ['steps and a condition', STEPS],
  [
    'a step naming an unknown question',
    { ...STEPS, pages: [{ questions: ['kind', 'company', 'contry'] }] },
  ],
  ['a question on no step', { ...STEPS, pages: [{ questions: ['kind'] }] }],
  [
    'a question on two steps',
    { ...STEPS, pages: [{ questions: ['kind', 'company'] }, { questions: ['company'] }] },
  ],
  ['an empty step', { ...STEPS, pages: [...STEPS.pages, { questions: [] }] }],
  ['a condition on a later question', { ...STEPS, pages: [{ questions: ['company', 'kind'] }] }],
  [
    'a condition on its own question',
    {
      ...STEPS,
      questions: [
        STEPS.questions[0],
        { ...STEPS.questions[1], showIf: { question: 'company', equals: 'x' } },
      ],
    },
  ],
];

describe('the definition editor checks as the server does', () => {
  it.each(DEFINITIONS)('%s', async (_, definition) => {
    const text = JSON.stringify(definition, null, 2);
    const parsed = parseJson(text);
    expect(parsed.value).toEqual(JSON.parse(text));
    const problems = checkDefinition(schema, parsed.value);
    const server = await serverSays(definition);
    if (server === null) expect(problems).toEqual([]);
    else expect(problems.map((p) => p.path.join('/'))).toContain(server);
  });
});

describe('origins and webhook URLs are refused as the server refuses them', () => {
  const ORIGINS = [
    'https://www.example.com',
    'http://localhost:8080',
    'https://www.example.com/',
    'https://www.example.com/contact',
    'www.example.com',
    'ftp://example.com',
    'https://EXAMPLE.com',
    'https://example.com:443',
    'https://*.example.com',
    '*',
  ];
  it.each(ORIGINS)('origin %s', async (origin) => {
    let server = true;
    try {
      await stack.putContactForm([origin]);
    } catch {
      server = false;
    }
    expect(originProblem(origin) === null).toBe(server);
  });

  const HOOKS = [
    'https://hooks.example/havn',
    'http://127.0.0.1:9000/x',
    'ftp://hooks.example/',
    'https://user:pw@hooks.example/',
    'not a url',
  ];
  it.each(HOOKS)('webhook %s', async (url) => {
    let server = true;
    try {
      await stack.putContactForm([], CONTACT_DEFINITION, [{ url }]);
    } catch {
      server = false;
    }
    expect(webhookUrlProblem(url) === null).toBe(server);
  });
});

describe('line numbers', () => {
  it('names the line of each value and key, and of a syntax error', () => {
    const text = '{\n  "intro": {\n    "title": 1\n  },\n  "questions": [\n    {}\n  ]\n}';
    const parsed = parseJson(text);
    expect(parsed.lineOf(['intro', 'title'])).toBe(3);
    expect(parsed.lineOf(['questions', 0])).toBe(6);
    expect(parsed.lineOf(['questions', 0, 'label'])).toBe(6); // missing: its object's line
    expect(() => parseJson('{\n  "a": 1\n  "b": 2\n}')).toThrow(/Expected "," or "}"/);
    try {
      parseJson('{\n  "a": 1\n  "b": 2\n}');
    } catch (err) {
      expect((err as { line: number }).line).toBe(3);
    }
  });
});
