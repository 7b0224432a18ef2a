import { Type } from '@fastify/type-provider-typebox';

// docs/forms.md#endpoints: every failure is JSON `{ "error": "message" }`.

export const ErrorBody = Type.Object(
  { error: Type.String({ description: 'What went wrong, in one sentence naming the field' }) },
  { additionalProperties: false },
);

/** The error answers of a route: these statuses, and the 500 any route may answer. */
export function errorAnswers<S extends number>(
  ...statuses: S[]
): Record<S | 500, typeof ErrorBody> {
  return Object.fromEntries([...statuses, 500].map((s) => [s, ErrorBody])) as Record<
    S | 500,
    typeof ErrorBody
  >;
}

/** The statuses every admin route may answer: a bad parameter, the token, the organisation. */
export const adminErrors = [400, 401, 403, 404] as const;

/** What a JSON body adds: too large, not JSON. */
export const bodyErrors = [413, 415] as const;

/** 204: no body. */
export const NoContent = Type.Null({ description: 'No content' });

/** 303 to a page (a plain HTML post's answer): no body; `Location` says where. */
export const SeeOther = Type.Unknown({ description: 'No body; Location is where to go next' });
