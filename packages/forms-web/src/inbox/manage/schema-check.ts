// Checks a value against the definition's JSON Schema as the server publishes it
// (GET /schema/definition.json, docs/definition-format.md), with the keywords that schema uses,
// plus the rules the schema states in words: unique logicalNames, unique option values, and the
// steps and conditions rules, judged by the server's own module (`logicProblem`).
import { logicProblem } from '@havn/forms/show-if';
import type { JsonPath } from './json-lines.js';

export interface SchemaProblem {
  path: JsonPath;
  message: string;
}

type Schema = Record<string, unknown>;

const obj = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

const TYPE_WORDS: Record<string, string> = {
  object: 'an object',
  array: 'an array',
  string: 'text in double quotes',
  number: 'a number',
  integer: 'a whole number',
  boolean: 'true or false',
  null: 'null',
};

function typeMatches(want: string, v: unknown): boolean {
  const t = typeOf(v);
  return want === t || (want === 'number' && t === 'integer');
}

export function checkSchema(schema: Schema, value: unknown, path: JsonPath = []): SchemaProblem[] {
  const out: SchemaProblem[] = [];
  const add = (message: string, at: JsonPath = path) => out.push({ path: at, message });
  const types = schema.type === undefined ? [] : ([] as unknown[]).concat(schema.type);
  if (types.length && !types.some((t) => typeMatches(String(t), value))) {
    add(`must be ${types.map((t) => TYPE_WORDS[String(t)] ?? String(t)).join(' or ')}`);
    return out; // the other keywords would only repeat this
  }
  if ('const' in schema && JSON.stringify(schema.const) !== JSON.stringify(value)) {
    add(`must be ${JSON.stringify(schema.const)}`);
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((e) => e === value)) {
    add(`must be one of: ${schema.enum.map((e) => String(e)).join(', ')}`);
  }
  if (typeof value === 'string') {
    // JSON Schema counts code points, as the server does.
    const length = Array.from(value).length;
    if (typeof schema.minLength === 'number' && length < schema.minLength) {
      add(
        schema.minLength === 1
          ? 'must not be empty'
          : `needs at least ${schema.minLength} characters`,
      );
    }
    if (typeof schema.maxLength === 'number' && length > schema.maxLength) {
      add(`must be at most ${schema.maxLength} characters`);
    }
    if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(value)) {
      add(`does not have the expected format (${schema.pattern})`);
    }
  }
  if (typeof value === 'number') {
    if (typeof schema.minimum === 'number' && value < schema.minimum) {
      add(`must be at least ${schema.minimum}`);
    }
    if (typeof schema.maximum === 'number' && value > schema.maximum) {
      add(`must be at most ${schema.maximum}`);
    }
    if (typeof schema.exclusiveMinimum === 'number' && value <= schema.exclusiveMinimum) {
      add(`must be more than ${schema.exclusiveMinimum}`);
    }
  }
  if (Array.isArray(value)) {
    if (typeof schema.minItems === 'number' && value.length < schema.minItems) {
      add(`needs at least ${schema.minItems} ${schema.minItems === 1 ? 'entry' : 'entries'}`);
    }
    if (typeof schema.maxItems === 'number' && value.length > schema.maxItems) {
      add(`can have at most ${schema.maxItems} entries`);
    }
    if (obj(schema.items)) {
      const items = schema.items;
      value.forEach((item, n) => out.push(...checkSchema(items, item, [...path, n])));
    }
  }
  if (obj(value)) {
    for (const name of Array.isArray(schema.required) ? schema.required : []) {
      // Named at the missing field's path, as the server names it; its line is the object's.
      if (typeof name === 'string' && !(name in value)) add('is required', [...path, name]);
    }
    const props = obj(schema.properties) ? schema.properties : {};
    const patterns = obj(schema.patternProperties) ? schema.patternProperties : {};
    for (const [k, v] of Object.entries(value)) {
      let known = false;
      const own = props[k];
      if (obj(own)) {
        known = true;
        out.push(...checkSchema(own, v, [...path, k]));
      }
      for (const [p, s] of Object.entries(patterns)) {
        if (obj(s) && new RegExp(p, 'u').test(k)) {
          known = true;
          out.push(...checkSchema(s, v, [...path, k]));
        }
      }
      if (!known && schema.additionalProperties === false) {
        add(`"${k}" is not a field of the definition format here`, [...path, k]);
      } else if (!known && obj(schema.additionalProperties)) {
        out.push(...checkSchema(schema.additionalProperties, v, [...path, k]));
      }
    }
  }
  for (const s of Array.isArray(schema.allOf) ? schema.allOf : []) {
    if (obj(s)) out.push(...checkSchema(s, value, path));
  }
  if (obj(schema.if) && obj(schema.then) && checkSchema(schema.if, value, path).length === 0) {
    out.push(...checkSchema(schema.then, value, path));
  }
  for (const k of ['anyOf', 'oneOf'] as const) {
    const options = schema[k];
    if (Array.isArray(options) && options.length) {
      const results = options.map((s) => (obj(s) ? checkSchema(s, value, path) : []));
      if (!results.some((r) => r.length === 0)) {
        // Report the alternative that came closest.
        out.push(...results.reduce((a, b) => (b.length < a.length ? b : a)));
      }
    }
  }
  return out;
}

/** The rules the published schema states in words (its `questions` description). */
export function checkUniqueness(definition: unknown): SchemaProblem[] {
  const out: SchemaProblem[] = [];
  if (!obj(definition) || !Array.isArray(definition.questions)) return out;
  const names = new Set<string>();
  definition.questions.forEach((q: unknown, n) => {
    if (!obj(q)) return;
    if (typeof q.logicalName === 'string') {
      if (names.has(q.logicalName)) {
        out.push({
          path: ['questions', n, 'logicalName'],
          message: `"${q.logicalName}" is used by another question already`,
        });
      }
      names.add(q.logicalName);
    }
    if (Array.isArray(q.options)) {
      const values = new Set<unknown>();
      q.options.forEach((o: unknown, m) => {
        if (!obj(o)) return;
        if (values.has(o.value)) {
          out.push({
            path: ['questions', n, 'options', m, 'value'],
            message: `"${String(o.value)}" is the value of another option already`,
          });
        }
        values.add(o.value);
      });
    }
  });
  return out;
}

/**
 * The steps and conditions rules (docs/definition-format.md#steps-and-conditions): every question
 * on one step, each condition naming only earlier questions. Judged by the module the server
 * judges with, so the two agree; only once the shape is right, which that module takes for given.
 */
export function checkLogic(definition: unknown): SchemaProblem[] {
  if (!obj(definition) || !Array.isArray(definition.questions)) return [];
  const problem = logicProblem(
    definition as { questions: Record<string, unknown>[]; pages?: unknown },
  );
  if (problem === null) return [];
  const split = problem.indexOf(': ');
  const path = problem
    .slice(0, split)
    .split('/')
    .map((part) => (/^\d+$/.test(part) ? Number(part) : part));
  return [{ path, message: problem.slice(split + 2) }];
}

/** Every problem the editor shows: the schema's and the uniqueness rules', else the logic's. */
export function checkDefinition(schema: Record<string, unknown>, value: unknown): SchemaProblem[] {
  const found = [...checkSchema(schema, value), ...checkUniqueness(value)];
  return found.length > 0 ? found : checkLogic(value);
}
