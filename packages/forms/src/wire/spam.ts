import { Type, type Static } from '@fastify/type-provider-typebox';
import { Feed, FormFeedParams, SubmissionParams } from './submissions.js';

// The request and response shapes of routes/spam.routes.ts (docs/forms.md#spam).

export { FormFeedParams as FormParams, SubmissionParams };

/** An ALTCHA v2 challenge as altcha-lib 2.x makes it (docs/forms.md#proof-of-work). */
export const Challenge = Type.Object(
  {
    parameters: Type.Object(
      {
        algorithm: Type.String(),
        nonce: Type.String(),
        salt: Type.String(),
        cost: Type.Integer(),
        keyLength: Type.Integer(),
        keyPrefix: Type.String(),
        keySignature: Type.Optional(Type.String()),
        expiresAt: Type.Optional(Type.Integer({ description: 'seconds since the epoch' })),
        /** `form`: the org/form the challenge was issued for (signed, so it cannot be moved). */
        data: Type.Optional(
          Type.Record(
            Type.String(),
            Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()]),
          ),
        ),
      },
      { additionalProperties: false },
    ),
    signature: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

export const SpamFeedQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1 })),
  before: Type.Optional(Type.String()),
});

/** The spam feed answers like the other feeds (docs/forms.md#the-spam-view-and-not-spam). */
export const SpamFeed = Feed;

export const NotSpam = Type.Object(
  {
    id: Type.String(),
    spam: Type.Literal(false),
    queued: Type.Integer({ description: 'deliveries queued: 0 when it was not spam' }),
  },
  { additionalProperties: false },
);

export type ChallengeAnswer = Static<typeof Challenge>;
export type NotSpamAnswer = Static<typeof NotSpam>;
