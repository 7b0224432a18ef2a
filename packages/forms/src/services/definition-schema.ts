import { Type, type TSchema } from 'typebox';
import { RUNTIME_TEXTS } from '../logic/runtime-texts.js';

// The definition format of docs/definition-format.md as JSON Schema. One schema per
// question type, so an error names the field of that type rather than "matches no alternative".

const str = (min: number, max: number) => Type.String({ minLength: min, maxLength: max });
const count = (min: number, max: number) => Type.Integer({ minimum: min, maximum: max });
const isoDate = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' });

export const questionTypes = [
  'text',
  'email',
  'textarea',
  'number',
  'choice',
  'date',
  'consent',
  'file',
] as const;
export type QuestionType = (typeof questionTypes)[number];

/**
 * A `showIf` condition (docs/definition-format.md#steps-and-conditions). Its recursive shape and
 * its references are checked by logicProblem (logic/show-if.ts), which names the exact path; the
 * published schema describes it in full (conditionSchema).
 */
const showIf = Type.Optional(Type.Unknown());

function question(type: QuestionType, extra: Record<string, TSchema>) {
  return Type.Object(
    {
      logicalName: Type.String({
        minLength: 1,
        maxLength: 100,
        pattern: '^[A-Za-z0-9.-][A-Za-z0-9_.-]*$',
      }),
      type: Type.Literal(type),
      label: str(1, 500),
      help: Type.Optional(str(0, 1000)),
      required: Type.Optional(Type.Boolean()),
      placeholder: Type.Optional(str(0, 200)),
      showIf,
      // docs/forms-web.md#resumable-answers: never kept in the visitor's browser.
      sensitive: Type.Optional(Type.Boolean()),
      ...extra,
    },
    { additionalProperties: false },
  );
}

export const questionSchemas: Record<QuestionType, TSchema> = {
  text: question('text', {
    minLength: Type.Optional(count(0, 1_000_000)),
    maxLength: Type.Optional(count(1, 1_000_000)),
    pattern: Type.Optional(str(1, 1000)),
  }),
  email: question('email', { maxLength: Type.Optional(count(1, 1_000_000)) }),
  textarea: question('textarea', {
    minLength: Type.Optional(count(0, 1_000_000)),
    maxLength: Type.Optional(count(1, 1_000_000)),
    rows: Type.Optional(count(1, 50)),
  }),
  number: question('number', {
    min: Type.Optional(Type.Number()),
    max: Type.Optional(Type.Number()),
    step: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
  }),
  choice: question('choice', {
    options: Type.Array(
      Type.Object({ value: str(1, 200), label: str(1, 500) }, { additionalProperties: false }),
      { minItems: 1, maxItems: 200 },
    ),
    multiple: Type.Optional(Type.Boolean()),
    minSelected: Type.Optional(count(0, 200)),
    maxSelected: Type.Optional(count(1, 200)),
  }),
  date: question('date', { min: Type.Optional(isoDate), max: Type.Optional(isoDate) }),
  consent: question('consent', {}),
  // docs/forms.md#file-uploads: the type is checked by the file's own bytes against `accept`.
  file: question('file', {
    accept: Type.Optional(
      Type.Array(
        Type.String({
          maxLength: 100,
          pattern: '^(\\.[A-Za-z0-9][A-Za-z0-9+-]{0,19}|[a-z]+/([a-z0-9][a-z0-9.+-]*|\\*))$',
          description: 'a MIME type (image/png, image/*) or an extension (.pdf)',
        }),
        { maxItems: 50 },
      ),
    ),
    maxBytes: Type.Optional(count(1, 2 ** 40)),
    maxFiles: Type.Optional(count(1, 20)),
  }),
};

const intro = Type.Object(
  {
    title: str(1, 200),
    text: Type.Optional(str(0, 5000)),
    image: Type.Optional(
      Type.Object(
        { url: Type.String({ pattern: '^https?://', maxLength: 2048 }), alt: str(0, 500) },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

/** The definition with questions left open: checked one by one against `questionSchemas`. */
export const definitionShell = Type.Object(
  {
    intro,
    questions: Type.Array(Type.Object({}), { minItems: 1, maxItems: 200 }),
    submitFields: Type.Optional(Type.Record(Type.String(), Type.String({ maxLength: 10_000 }))),
    thanks: Type.Optional(str(0, 2000)),
    pages: Type.Optional(
      Type.Array(
        Type.Object(
          {
            title: Type.Optional(str(1, 200)),
            questions: Type.Array(Type.String(), { minItems: 1, maxItems: 200 }),
            showIf,
          },
          { additionalProperties: false },
        ),
        { minItems: 1, maxItems: 50 },
      ),
    ),
    keepHiddenAnswers: Type.Optional(Type.Boolean()),
    resume: Type.Optional(Type.Boolean()),
    // docs/forms-web.md#languages: a BCP 47 tag, and any of the runtime's own texts replaced.
    locale: Type.Optional(
      Type.String({ maxLength: 35, pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$' }),
    ),
    texts: Type.Optional(
      Type.Object(
        Object.fromEntries(
          Object.keys(RUNTIME_TEXTS).map((key) => [key, Type.Optional(str(1, 1000))]),
        ),
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

const scalar = { type: ['string', 'number', 'boolean'] };
const questionRef = { type: 'string', minLength: 1 };
/** The published JSON Schema of a condition: `$defs/condition` of the definition schema. */
const conditionSchema = {
  oneOf: [
    ...(['equals', 'notEquals'] as const).map((op) => ({
      type: 'object',
      properties: { question: questionRef, [op]: scalar },
      required: ['question', op],
      additionalProperties: false,
    })),
    {
      type: 'object',
      properties: { question: questionRef, in: { type: 'array', minItems: 1, items: scalar } },
      required: ['question', 'in'],
      additionalProperties: false,
    },
    {
      type: 'object',
      properties: { question: questionRef, answered: { type: 'boolean' } },
      required: ['question', 'answered'],
      additionalProperties: false,
    },
    {
      type: 'object',
      properties: { not: { $ref: '#/$defs/condition' } },
      required: ['not'],
      additionalProperties: false,
    },
    ...(['all', 'any'] as const).map((op) => ({
      type: 'object',
      properties: {
        [op]: { type: 'array', minItems: 1, maxItems: 50, items: { $ref: '#/$defs/condition' } },
      },
      required: [op],
      additionalProperties: false,
    })),
  ],
  description: 'names only questions shown before the one it is on (docs: definition-format.md)',
};
const conditionRef = { $ref: '#/$defs/condition' };

/** The published JSON Schema (GET /schema/definition.json). */
export function publishedSchema(baseUrl: string): Record<string, unknown> {
  const shell = JSON.parse(JSON.stringify(definitionShell)) as {
    properties: Record<string, unknown> & {
      pages: { items: { properties: Record<string, unknown> } };
    };
  };
  shell.properties.pages.items.properties.showIf = conditionRef;
  shell.properties.questions = {
    type: 'array',
    minItems: 1,
    maxItems: 200,
    items: {
      type: 'object',
      required: ['logicalName', 'type', 'label'],
      properties: { type: { enum: [...questionTypes] } },
      allOf: questionTypes.map((t) => ({
        if: { properties: { type: { const: t } }, required: ['type'] },
        then: withConditionRef(questionSchemas[t]),
      })),
    },
    description: 'logicalName values are unique; option values are unique within a question',
  };
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: `${baseUrl}/schema/definition.json`,
    title: 'Havn form definition',
    ...shell,
    $defs: { condition: conditionSchema },
  };
}

function withConditionRef(schema: TSchema): unknown {
  const copy = JSON.parse(JSON.stringify(schema)) as { properties: Record<string, unknown> };
  copy.properties.showIf = conditionRef;
  return copy;
}
