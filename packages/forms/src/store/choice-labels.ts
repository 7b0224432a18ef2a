import { isRecord } from '@havn/shared';

/** Each choice question's option labels by value: logicalName → value → label. */
export type ChoiceLabels = Readonly<Record<string, Readonly<Record<string, string>>>>;

/**
 * The option labels of a definition's `choice` questions (docs/definition-format.md), for
 * showing answers to people: the feed preview and the "labels" export (docs/forms.md#submissions).
 */
export function choiceLabels(definition: unknown): ChoiceLabels {
  const questions = (definition as { questions?: unknown } | null)?.questions;
  const out: Record<string, Record<string, string>> = {};
  if (!Array.isArray(questions)) return out;
  for (const q of questions as unknown[]) {
    if (!isRecord(q) || q.type !== 'choice' || typeof q.logicalName !== 'string') continue;
    if (!Array.isArray(q.options)) continue;
    const labels: Record<string, string> = {};
    for (const o of q.options as unknown[]) {
      if (isRecord(o) && typeof o.value === 'string' && typeof o.label === 'string') {
        labels[o.value] = o.label;
      }
    }
    out[q.logicalName] = labels;
  }
  return out;
}

/** An answer with its choices written as their labels; a value with no label stays as it is. */
export function labelled(labels: ChoiceLabels, name: string, value: unknown): unknown {
  // Own keys only: an answer such as "constructor" is not a label.
  if (!Object.hasOwn(labels, name)) return value;
  const options = labels[name] ?? {};
  const one = (v: unknown) => (typeof v === 'string' && Object.hasOwn(options, v) ? options[v] : v);
  return Array.isArray(value) ? value.map(one) : one(value);
}
