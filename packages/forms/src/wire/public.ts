import { Type, type Static } from '@fastify/type-provider-typebox';

// docs/forms.md#public-no-token-gated-by-the-forms-allowedorigins.

export const PublicFormParams = Type.Object({ org: Type.String(), form: Type.String() });

/** The block the server adds to a served definition. */
export const SubmitBlock = Type.Object(
  {
    submitUrl: Type.String({ description: 'Absolute URL of the ingest endpoint' }),
    submitMethod: Type.Literal('POST'),
    spamProtection: Type.Optional(Type.Literal('pow')),
    challengeUrl: Type.Optional(
      Type.String({ description: 'Where a "pow" form gets its proof-of-work challenge' }),
    ),
  },
  { additionalProperties: false },
);

/** The stored definition (docs/definition-format.md) with the submit block injected. */
export const PublicDefinition = Type.Object(
  { submit: SubmitBlock },
  { additionalProperties: true, description: 'The definition plus its submit block' },
);

/**
 * An ingest body, for the document only (the route reads the bytes itself): the flat answers
 * map plus `submitFields`; or a plain HTML form's fields (docs/forms.md#plain-html-posts).
 */
export const IngestBody = Type.Object(
  {
    submitFields: Type.Optional(
      Type.Record(
        Type.String(),
        Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()]),
      ),
    ),
  },
  {
    additionalProperties: Type.Union([
      Type.String(),
      Type.Number(),
      Type.Boolean(),
      Type.Null(),
      Type.Array(Type.String()),
    ]),
  },
);

export const Received = Type.Object(
  { status: Type.Literal('received'), id: Type.String() },
  { additionalProperties: false },
);

export type ReceivedAnswer = Static<typeof Received>;
