import { Type } from '@fastify/type-provider-typebox';

// The request and response shapes of routes/spam.routes.ts (docs/forms.md#spam).

export const ErrorAnswer = Type.Object({ error: Type.String() });

export const FormParams = Type.Object({ org: Type.String(), form: Type.String() });

export const SubmissionParams = Type.Object({
  org: Type.String(),
  form: Type.String(),
  id: Type.String(),
});

/** An ALTCHA v2 challenge as altcha-lib 2.x makes it (docs/forms.md#spam). */
export const ChallengeAnswer = Type.Object({
  parameters: Type.Object({
    algorithm: Type.String(),
    nonce: Type.String(),
    salt: Type.String(),
    cost: Type.Integer(),
    keyLength: Type.Integer(),
    keyPrefix: Type.String(),
    keySignature: Type.Optional(Type.String()),
    expiresAt: Type.Optional(Type.Integer()),
    /** `form`: the org/form the challenge was issued for (signed, so it cannot be moved). */
    data: Type.Optional(
      Type.Record(
        Type.String(),
        Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()]),
      ),
    ),
  }),
  signature: Type.Optional(Type.String()),
});

export const SpamFeedQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1 })),
  before: Type.Optional(Type.String()),
});

export const SpamFeedAnswer = Type.Object({
  submissions: Type.Array(
    Type.Object({
      id: Type.String(),
      org: Type.String(),
      form: Type.String(),
      receivedAt: Type.String(),
      read: Type.Boolean(),
      spam: Type.Boolean(),
      preview: Type.String(),
    }),
  ),
});

export const NotSpamAnswer = Type.Object({
  id: Type.String(),
  spam: Type.Literal(false),
  queued: Type.Integer({ description: 'deliveries queued: 0 when it was not spam' }),
});
