// A question's condition as the builder edits it (docs/definition-format.md#steps-and-conditions):
// "show only when <question> is / is not <value>". Any other condition (`in`, `answered`, `not`,
// `all`, `any`) is kept as written and edited under Advanced (JSON).
import { displayOrder } from '@havn/forms/show-if';
import type { Definition, Question } from './definition-model.js';
import { pagesOf } from './steps-model.js';
import { isObject, text } from './json-values.js';

export type Scalar = string | number | boolean;

export interface SimpleCondition {
  question: string;
  op: 'equals' | 'notEquals';
  value: Scalar;
}

const isScalar = (v: unknown): v is Scalar => ['string', 'number', 'boolean'].includes(typeof v);

/** The condition as the builder's three fields, or null when it is another kind. */
export function simpleCondition(c: unknown): SimpleCondition | null {
  if (!isObject(c) || typeof c.question !== 'string' || Object.keys(c).length !== 2) return null;
  if ('equals' in c && isScalar(c.equals))
    return { question: c.question, op: 'equals', value: c.equals };
  if ('notEquals' in c && isScalar(c.notEquals)) {
    return { question: c.question, op: 'notEquals', value: c.notEquals };
  }
  return null;
}

export function toCondition(c: SimpleCondition): Record<string, unknown> {
  return { question: c.question, [c.op]: c.value };
}

/**
 * The questions a condition on the question at `index` may name: those people see before it
 * (in step order), as the server requires.
 */
export function earlierQuestions(def: Definition, index: number): Question[] {
  const self = def.questions[index];
  const pages = pagesOf(def) ?? undefined;
  const order = displayOrder({
    questions: def.questions.map((q) => ({ ...q, logicalName: text(q.logicalName), q })),
    pages,
  }).map((o) => o.question.q);
  const at = order.indexOf(self ?? {});
  return at < 0 ? [] : order.slice(0, at);
}

export interface ValueChoice {
  value: Scalar;
  label: string;
}

/** The answers a condition can compare with, when the question has a fixed set; else null. */
export function answerChoices(q: Question | undefined): ValueChoice[] | null {
  if (!q) return null;
  if (q.type === 'consent') return [{ value: true, label: 'Ticked' }];
  if (Array.isArray(q.options)) {
    return q.options.filter(isObject).map((o) => ({
      value: text(o.value),
      label: text(o.label) || text(o.value),
    }));
  }
  return null;
}

/** A new condition on the question just before it: "is" its first answer. */
export function startCondition(def: Definition, index: number): SimpleCondition | null {
  const first = earlierQuestions(def, index).at(-1);
  if (!first) return null;
  return {
    question: text(first.logicalName),
    op: 'equals',
    value: answerChoices(first)?.[0]?.value ?? '',
  };
}

/** A typed answer as the condition stores it: a number question compares numbers. */
export function typedValue(q: Question | undefined, raw: string): Scalar {
  if (q?.type === 'number' && raw.trim() !== '' && Number.isFinite(Number(raw))) return Number(raw);
  return raw;
}
