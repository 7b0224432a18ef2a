// How the builder reads a definition's loose JSON values: the draft may hold anything the JSON
// editor let through, so every read is checked.
import type { Question } from './definition-model.js';

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A string value, or '' for anything else. */
export const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/** A question's logicalName, or ''. */
export const nameOf = (q: Question | undefined): string => text(q?.logicalName);
