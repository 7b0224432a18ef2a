import { Type, type TSchema } from 'typebox';

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
] as const;
export type QuestionType = (typeof questionTypes)[number];

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
  },
  { additionalProperties: false },
);

/** The published JSON Schema (GET /schema/definition.json). */
export function publishedSchema(baseUrl: string): Record<string, unknown> {
  const shell = JSON.parse(JSON.stringify(definitionShell)) as {
    properties: Record<string, unknown>;
  };
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
        then: questionSchemas[t],
      })),
    },
    description: 'logicalName values are unique; option values are unique within a question',
  };
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: `${baseUrl}/schema/definition.json`,
    title: 'Havn form definition',
    ...shell,
  };
}
