import type { FastifyServerOptions, FastifySchemaValidationError } from 'fastify';
import { formsErrors } from '../errors.js';

/** The field an error is about: its path inside the body or query, `a/0/b`. */
function fieldOf(error: FastifySchemaValidationError): string {
  const path = error.instancePath.replace(/^\//, '');
  if (error.keyword === 'required' && typeof error.params.missingProperty === 'string') {
    return path ? `${path}/${error.params.missingProperty}` : error.params.missingProperty;
  }
  return path;
}

function oneOf(values: unknown[]): string {
  const shown = values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v)));
  if (shown.length <= 1) return shown.join('');
  return `${shown.slice(0, -1).join(', ')} or ${shown.at(-1) ?? ''}`;
}

const article = (type: string) => (/^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`);

/** The rule broken, as the end of a sentence that starts with the field's name. */
function ruleOf(error: FastifySchemaValidationError, siblings: FastifySchemaValidationError[]) {
  // A union of literals (`format: csv | json`) fails once per literal, then once as a whole.
  const allowed = siblings.flatMap((e) => {
    if (e.keyword === 'const') return [e.params.allowedValue];
    if (e.keyword === 'enum' && Array.isArray(e.params.allowedValues)) {
      return e.params.allowedValues as unknown[];
    }
    return [];
  });
  if (allowed.length > 0) return `must be ${oneOf(allowed)}`;
  const p = error.params;
  switch (error.keyword) {
    case 'required':
      return 'is required';
    case 'type':
      return `must be ${article(String(p.type))}`;
    case 'additionalProperties':
      return `has an unknown field ${String(p.additionalProperty)}`;
    case 'maxLength':
      return `must be at most ${String(p.limit)} characters`;
    case 'minLength':
      return `must be at least ${String(p.limit)} characters`;
    case 'maxItems':
      return `must have at most ${String(p.limit)} items`;
    case 'minimum':
    case 'maximum':
      return `must be ${error.keyword === 'minimum' ? 'at least' : 'at most'} ${String(p.limit)}`;
    case 'pattern':
      return `must match ${String(p.pattern)}`;
    default:
      return error.message ?? 'is not valid';
  }
}

/**
 * One plain sentence naming the field (`format must be csv or json`) in place of Ajv's list of
 * every branch it tried; docs/forms.md#endpoints: every 400 names the field.
 */
export const schemaErrorMessage: NonNullable<FastifyServerOptions['schemaErrorFormatter']> = (
  errors,
  dataVar,
) => {
  const first = errors[0];
  if (!first) return formsErrors.error('REQUEST_INVALID', { problem: `${dataVar} is not valid` });
  const field = fieldOf(first) || dataVar;
  const siblings = errors.filter((e) => e.instancePath === first.instancePath);
  return formsErrors.error('REQUEST_INVALID', { problem: `${field} ${ruleOf(first, siblings)}` });
};
