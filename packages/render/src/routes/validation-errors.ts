import type { FastifySchemaValidationError } from 'fastify/types/schema.js';

// Validation messages that name the field the way a client wrote it
// (docs/render.md#behaviour-in-detail): `format must be one of "png", "jpeg", "pdf"` rather than
// Ajv's one line per union member.

function fieldOf(dataVar: string, instancePath: string): string {
  const path = instancePath
    .split('/')
    .filter(Boolean)
    .map((part) => (/^\d+$/.test(part) ? `[${part}]` : `.${part}`))
    .join('')
    .replace(/^\./, '');
  return path === '' ? dataVar : path;
}

/** Fastify's schemaErrorFormatter: one clear message for the first failing field. */
export function formatValidationErrors(
  errors: FastifySchemaValidationError[],
  dataVar: string,
): Error {
  // A union the value was shaped for (an object where `true | { fps, … }` is allowed) failed on a
  // rule of that shape: name that rule, not the other members' types.
  const union = errors.find((e) => e.keyword === 'anyOf');
  const specific =
    union &&
    errors.find(
      (e) =>
        e.keyword !== 'type' &&
        e.keyword !== 'anyOf' &&
        e.keyword !== 'const' &&
        e.instancePath.startsWith(union.instancePath),
    );
  const first = specific ?? errors[0];
  if (!first) return new Error(`${dataVar} is invalid`);
  if (first.keyword === 'additionalProperties') {
    const extra = String((first.params as { additionalProperty?: unknown }).additionalProperty);
    return new Error(`${fieldOf(dataVar, `${first.instancePath}/${extra}`)} is not a known field`);
  }
  const same = errors.filter((e) => e.instancePath === first.instancePath);
  const field = fieldOf(dataVar, first.instancePath);
  const allowed = same
    .filter((e) => e.keyword === 'const')
    .map((e) => JSON.stringify((e.params as { allowedValue?: unknown }).allowedValue));
  if (allowed.length > 0) return new Error(`${field} must be one of ${allowed.join(', ')}`);
  if (same.some((e) => e.keyword === 'anyOf')) {
    const types = same
      .filter((e) => e.keyword === 'type')
      .map((e) => String((e.params as { type?: unknown }).type));
    if (types.length > 0) return new Error(`${field} must be ${types.join(' or ')}`);
  }
  return new Error(`${field} ${first.message ?? 'is invalid'}`);
}
