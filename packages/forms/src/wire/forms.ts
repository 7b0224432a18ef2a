import { Type, type Static } from '@fastify/type-provider-typebox';

// docs/forms.md#forms-and-definitions.

const FormId = Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$' });

export const FormParams = Type.Object({ org: Type.String(), form: FormId });
export const DefinitionVersionParams = Type.Object({
  org: Type.String(),
  form: Type.String(),
  version: Type.Integer({ minimum: 1 }),
});

/** A definition (docs/definition-format.md): `intro`, `questions` and the rest, as stored. */
export const Definition = Type.Record(Type.String(), Type.Unknown(), {
  description: 'A form definition (docs/definition-format.md)',
});

/**
 * The body of a form `PUT` (every field replaced; omitted means empty) and `PATCH` (only the
 * fields named). Fields typed `unknown` here are checked in the service, which names the bad entry
 * in one sentence (a schema union with null would also let Ajv coerce 0 to null).
 */
export const FormBody = Type.Object({
  name: Type.Optional(Type.String({ maxLength: 200 })),
  description: Type.Optional(Type.String({ maxLength: 5000 })),
  allowedOrigins: Type.Optional(Type.Array(Type.String(), { maxItems: 100 })),
  webhooks: Type.Optional(
    Type.Array(
      Type.Object({
        url: Type.String({ maxLength: 2048 }),
        secret: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
      }),
      { maxItems: 20 },
    ),
  ),
  redirectUrl: Type.Optional(Type.Union([Type.String({ maxLength: 2048 }), Type.Null()])),
  retentionDays: Type.Optional(
    Type.Unknown({ description: 'whole days from 1 to 36500, or null to keep everything' }),
  ),
  notify: Type.Optional(
    Type.Unknown({ description: 'up to 20 email addresses (docs/forms.md#email-notices)' }),
  ),
  spamProtection: Type.Optional(
    Type.Unknown({ description: '"honeypot" (the default) or "pow" (docs/forms.md#spam)' }),
  ),
  definition: Type.Optional(
    Type.Unknown({ description: 'applied only when present and non-empty; versioned' }),
  ),
});

/** `PUT .../definition` takes the definition object itself. */
export const DefinitionBody = Type.Unknown({
  description: 'The definition object (docs/definition-format.md)',
});

export const Webhook = Type.Object(
  { url: Type.String(), secret: Type.String() },
  { additionalProperties: false },
);

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) =>
  Type.Union([t, Type.Null()]);

/** The whole form, as `PUT`, `PATCH` and `GET .../forms/<form>` answer it. */
export const Form = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    description: Type.String(),
    allowedOrigins: Type.Array(Type.String()),
    webhooks: Type.Array(Webhook),
    redirectUrl: Nullable(Type.String()),
    retentionDays: Nullable(Type.Integer()),
    notify: Type.Array(Type.String()),
    spamProtection: Type.Union([Type.Literal('honeypot'), Type.Literal('pow')]),
    definitionVersion: Nullable(Type.Integer()),
    createdAt: Type.String(),
    updatedAt: Type.String(),
  },
  { additionalProperties: false },
);

/** `GET .../forms/<form>`: the form, its current definition (once it has one), its public URL. */
export const FormView = Type.Object(
  {
    form: Form,
    definition: Type.Optional(Definition),
    embedUrl: Type.String({ description: 'The public definition URL' }),
  },
  { additionalProperties: false },
);

/** One form of the list, with counts (spam left out) and timestamps. */
export const FormSummary = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    description: Type.String(),
    submissions: Type.Integer(),
    unread: Type.Integer(),
    lastSubmissionAt: Nullable(Type.String()),
    createdAt: Type.String(),
    updatedAt: Type.String(),
    definitionVersion: Nullable(Type.Integer()),
  },
  { additionalProperties: false },
);
export const FormList = Type.Object(
  { forms: Type.Array(FormSummary) },
  { additionalProperties: false },
);

export const DefinitionStored = Type.Object(
  { version: Type.Integer({ minimum: 1 }) },
  { additionalProperties: false },
);

export type FormAnswer = Static<typeof Form>;
export type FormViewAnswer = Static<typeof FormView>;
export type FormSummaryAnswer = Static<typeof FormSummary>;
export type FormBodyInput = Static<typeof FormBody>;

/** `GET .../definitions`: every version with when it was saved, newest first. */
export const DefinitionVersions = Type.Object(
  {
    versions: Type.Array(
      Type.Object(
        { version: Type.Integer({ minimum: 1 }), createdAt: Type.String() },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
export type DefinitionVersionsAnswer = Static<typeof DefinitionVersions>;
