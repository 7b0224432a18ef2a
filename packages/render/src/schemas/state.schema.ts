import { Type, type Static } from 'typebox';
import { Labels } from './render.schema.js';

// Saved browser states (docs/sessions.md#log-in-once-render-many-times): the descriptor every
// route answers, the save body, and the name in a path. The contents never appear in any schema:
// no route answers them.

const NAME =
  'Lower-case letters, digits, `.`, `_` and `-`, up to 64: `^[a-z0-9][a-z0-9._-]{0,63}$`.';

export const StateName = Type.String({ minLength: 1, description: NAME });

export const StateDescriptor = Type.Object({
  name: Type.String(),
  origins: Type.Array(Type.String(), {
    description: 'Every origin whose localStorage or IndexedDB the state holds.',
  }),
  cookies: Type.Integer({ description: 'How many cookies it holds (httpOnly ones included).' }),
  bytes: Type.Integer({ description: 'The size of its contents, before encryption.' }),
  createdAt: Type.String({ description: 'ISO 8601 UTC with milliseconds.' }),
  labels: Type.Record(Type.String(), Type.String()),
});

export const StateList = Type.Object({ states: Type.Array(StateDescriptor) });

export const SaveStateBody = Type.Object({
  name: StateName,
  labels: Type.Optional(Labels),
});
export type SaveStateBody = Static<typeof SaveStateBody>;

export const StateParams = Type.Object({ name: Type.String() });

/** The errors a route that uses a state adds to its own: unknown (404), unreadable or no key (409). */
export const STATE_ERRORS = {
  404: Type.Object({ error: Type.String() }),
  409: Type.Object({ error: Type.String() }),
};
