// The definition as the visual builder changes it: plain objects in, new objects out, so every
// field the builder does not edit (a type it does not know, a field added to the format later)
// is kept as it was. docs/definition-format.md is the format.
import { idFromName } from '../../slug.js';
import type { JsonPath } from '../json-lines.js';
import { pagesOf, placeQuestion, renameReferences, unplaceQuestion } from './steps-model.js';
import { isObject, text } from './json-values.js';

export type Question = Record<string, unknown>;
export interface Definition extends Record<string, unknown> {
  questions: Question[];
}

/** The value as a definition the builder can show, or null (not an object with a questions list). */
export function asDefinition(value: unknown): Definition | null {
  if (!isObject(value) || !Array.isArray(value.questions)) return null;
  if (!value.questions.every(isObject)) return null;
  return value as Definition;
}

/** A logicalName made from a label: "Work email" → "work-email" (1..100 of [a-z0-9-]). */
export function nameFromLabel(label: string): string {
  return idFromName(label, 100) || 'question';
}

function unique(base: string, taken: ReadonlySet<string>): string {
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base}-${String(n)}`)) return `${base}-${String(n)}`;
}

/** Whether `name` is what the builder made from `label` (so it may follow a new label). */
function madeFrom(name: string, label: string): boolean {
  const base = nameFromLabel(label);
  return name === base || new RegExp(`^${base}-\\d+$`).test(name);
}

const names = (def: Definition, except?: number) =>
  new Set(def.questions.filter((_, n) => n !== except).map((q) => text(q.logicalName)));

function withQuestions(def: Definition, questions: Question[]): Definition {
  return { ...def, questions };
}

/**
 * A question's new label. Its logicalName follows the label while it is one the builder made and
 * the saved definition does not have yet: a saved name is what submissions are stored under.
 */
export function relabel(
  def: Definition,
  index: number,
  label: string,
  saved: ReadonlySet<string>,
): Definition {
  const next = withQuestions(
    def,
    def.questions.map((q, n) => {
      if (n !== index) return q;
      const name = text(q.logicalName);
      const old = text(q.label);
      // An emptied label keeps the name (a problem names the question by it meanwhile); the next
      // label typed makes a name again.
      const follows =
        label.trim() !== '' &&
        !saved.has(name) &&
        (name === '' || old.trim() === '' || madeFrom(name, old));
      return follows
        ? { ...q, label, logicalName: unique(nameFromLabel(label), names(def, index)) }
        : { ...q, label };
    }),
  );
  return followName(def, next, index);
}

/**
 * The question at `index` got a new logicalName: its steps and the conditions that name it follow.
 * Not while either name is another question's too (that is a problem the check names; following
 * then would take the other question's references along).
 */
function followName(before: Definition, after: Definition, index: number): Definition {
  const from = text(before.questions[index]?.logicalName);
  const to = text(after.questions[index]?.logicalName);
  const others = names(after, index);
  if (from === to || to === '' || others.has(from) || others.has(to)) return after;
  return renameReferences(after, from, to);
}

/** Sets (or, for undefined, removes) one field of one question. */
export function setField(def: Definition, index: number, key: string, value: unknown): Definition {
  const next = withQuestions(
    def,
    def.questions.map((q, n) => {
      if (n !== index) return q;
      const { [key]: _old, ...rest } = q;
      return value === undefined ? rest : { ...q, [key]: value };
    }),
  );
  return key === 'logicalName' ? followName(def, next, index) : next;
}

/** A new last question (on the last step, when the form has steps). */
export function addQuestion(def: Definition, question: Question): Definition {
  const label = text(question.label);
  const logicalName = unique(nameFromLabel(label), names(def));
  return placeQuestion(
    withQuestions(def, [...def.questions, { ...question, logicalName }]),
    logicalName,
  );
}

export function moveQuestion(def: Definition, from: number, to: number): Definition {
  if (to < 0 || to >= def.questions.length || from === to) return def;
  const questions = [...def.questions];
  const [moved] = questions.splice(from, 1);
  if (moved) questions.splice(to, 0, moved);
  return withQuestions(def, questions);
}

export function duplicateQuestion(def: Definition, index: number): Definition {
  const q = def.questions[index];
  if (!q) return def;
  const label = `${text(q.label)} (copy)`;
  const copy = {
    ...structuredClone(q),
    label,
    logicalName: unique(nameFromLabel(label), names(def)),
  };
  const questions = [...def.questions];
  questions.splice(index + 1, 0, copy);
  return placeQuestion(withQuestions(def, questions), copy.logicalName, text(q.logicalName));
}

/** Conditions that named the question stay, for the check to name (not silently dropped). */
export function deleteQuestion(def: Definition, index: number): Definition {
  const name = text(def.questions[index]?.logicalName);
  const next = withQuestions(
    def,
    def.questions.filter((_, n) => n !== index),
  );
  return pagesOf(next) ? unplaceQuestion(next, name) : next;
}

export interface Option {
  value: string;
  label: string;
}

export function optionsOf(q: Question): Option[] {
  return Array.isArray(q.options)
    ? q.options.filter(isObject).map((o) => ({ value: text(o.value), label: text(o.label) }))
    : [];
}

/** An option's new label; its value follows while it is one made from the old label. */
export function relabelOption(
  options: Option[],
  index: number,
  label: string,
  saved: ReadonlySet<string>,
): Option[] {
  const taken = new Set(options.filter((_, n) => n !== index).map((o) => o.value));
  return options.map((o, n) => {
    if (n !== index) return o;
    const follows =
      !saved.has(o.value) &&
      (o.value === '' || madeFrom(o.value, o.label) || /^option-\d+$/.test(o.value));
    return follows
      ? { label, value: unique(idFromName(label, 100) || 'option', taken) }
      : { ...o, label };
  });
}

export function addOption(options: Option[]): Option[] {
  const taken = new Set(options.map((o) => o.value));
  const n = options.length + 1;
  return [
    ...options,
    { label: `Option ${String(n)}`, value: unique(`option-${String(n)}`, taken) },
  ];
}

/** How a problem's place reads to a person: "Question 3 (Email), option 2 value". */
export function describePath(def: unknown, path: JsonPath): string {
  const [head, index, ...rest] = path;
  if (head === 'questions' && typeof index === 'number') {
    const q = asDefinition(def)?.questions[index];
    const name = text(q?.label) || text(q?.logicalName);
    const where = `Question ${String(index + 1)}${name ? ` (${name})` : ''}`;
    if (rest[0] === 'showIf') return conditionPlace(where, rest.slice(1));
    if (rest[0] === 'options' && typeof rest[1] === 'number') {
      return `${where}, option ${String(rest[1] + 1)}${rest[2] !== undefined ? ` ${String(rest[2])}` : ''}`;
    }
    return rest.length ? `${where}, ${rest.join('/')}` : where;
  }
  if (head === 'pages') {
    if (typeof index !== 'number') return 'Steps';
    const d = asDefinition(def);
    const title = text((d && pagesOf(d)?.[index])?.title);
    const where = `Step ${String(index + 1)}${title ? ` (${title})` : ''}`;
    if (rest[0] === 'showIf') return conditionPlace(where, rest.slice(1));
    if (rest[0] === 'questions' && typeof rest[1] === 'number') {
      return `${where}, question ${String(rest[1] + 1)} of the step`;
    }
    return rest.length ? `${where}, ${rest.join('/')}` : where;
  }
  if (head === 'intro') return path.length > 1 ? `Intro ${path.slice(1).join('/')}` : 'Intro';
  if (head === 'thanks') return 'Thanks text';
  if (head === 'submitFields')
    return path.length > 1 ? `Submit field ${String(path[1])}` : 'Submit fields';
  return path.length ? path.join('/') : 'The definition';
}

/** "Question 4 (VAT), condition" with, for a nested one, where in it: "condition all/1". */
function conditionPlace(where: string, inside: JsonPath): string {
  const at = inside.filter((part) => part !== 'question');
  return at.length ? `${where}, condition ${at.join('/')}` : `${where}, condition`;
}
