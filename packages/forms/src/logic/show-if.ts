// Steps and conditions of a form definition (docs/definition-format.md#steps-and-conditions):
// which questions a set of answers shows. Written once: the embeddable runtime bundles this file
// (through `@havn/forms/show-if`) and the server imports it, so the two never disagree about what
// was visible. It imports nothing, so the runtime gets only this.

type Scalar = string | number | boolean;

/** The condition language of `showIf`. */
export type Condition =
  | { question: string; equals: Scalar }
  | { question: string; notEquals: Scalar }
  | { question: string; in: Scalar[] }
  | { question: string; answered: boolean }
  | { not: Condition }
  | { all: Condition[] }
  | { any: Condition[] };

/** What of a definition the logic reads. */
export interface LogicDefinition {
  questions: readonly { logicalName: string; showIf?: Condition }[];
  pages?: readonly { questions: readonly string[]; showIf?: Condition }[] | undefined;
}

type Answers = Readonly<Record<string, unknown>>;

const OPERATORS = ['equals', 'notEquals', 'in', 'answered'] as const;

/** An answer counts as given unless it is missing, null, blank text, no option or an unticked box. */
export function isAnswered(value: unknown): boolean {
  if (value === undefined || value === null || value === false) return false;
  if (typeof value === 'string') return value.trim() !== '';
  return !Array.isArray(value) || value.length > 0;
}

/** A plain HTML post sends numbers and booleans as text: "5" equals 5, "true" equals true. */
function same(answer: unknown, expected: Scalar): boolean {
  if (answer === expected) return true;
  if (typeof answer !== 'string' || answer.trim() === '') return false;
  return typeof expected === 'number' ? Number(answer) === expected : answer === String(expected);
}

/** One answer (each option of a multiple choice) against `expected`. */
function matches(answer: unknown, expected: readonly Scalar[]): boolean {
  const values: unknown[] = Array.isArray(answer) ? answer : [answer];
  return values.some((v) => expected.some((e) => same(v, e)));
}

/** Whether `condition` holds for `answers` (the answers of visible questions only). */
export function evaluate(condition: Condition, answers: Answers): boolean {
  if ('not' in condition) return !evaluate(condition.not, answers);
  if ('all' in condition) return condition.all.every((c) => evaluate(c, answers));
  if ('any' in condition) return condition.any.some((c) => evaluate(c, answers));
  const answer = answers[condition.question];
  if ('answered' in condition) return isAnswered(answer) === condition.answered;
  if ('in' in condition) return matches(answer, condition.in);
  if ('equals' in condition) return matches(answer, [condition.equals]);
  return !matches(answer, [condition.notEquals]);
}

/** The questions in the order people meet them: page by page, or as listed without pages. */
export function displayOrder<Q extends { logicalName: string }>(def: {
  questions: readonly Q[];
  pages?: readonly { questions: readonly string[] }[] | undefined;
}): { question: Q; page: number }[] {
  if (!def.pages) return def.questions.map((question) => ({ question, page: 0 }));
  const byName = new Map(def.questions.map((q) => [q.logicalName, q]));
  return def.pages.flatMap((p, page) =>
    p.questions.flatMap((name) => {
      const question = byName.get(name);
      return question ? [{ question, page }] : [];
    }),
  );
}

export interface Visibility {
  /** The logicalNames of the questions shown. */
  questions: Set<string>;
  /** Per page (one page without `pages`): shown or skipped. */
  pages: boolean[];
}

/**
 * What `answers` shows, in display order: a page or question whose condition fails is hidden, and
 * a hidden question's answer counts as not given for the conditions after it.
 */
export function visibility(def: LogicDefinition, answers: Answers): Visibility {
  const seen: Record<string, unknown> = {};
  const questions = new Set<string>();
  const pages = (def.pages ?? [{ questions: [] }]).map(() => true);
  let current = -1;
  for (const { question, page } of displayOrder(def)) {
    if (page !== current) {
      current = page;
      const showIf = def.pages?.[page]?.showIf;
      pages[page] = showIf ? evaluate(showIf, seen) : true;
    }
    if (!pages[page] || (question.showIf && !evaluate(question.showIf, seen))) continue;
    questions.add(question.logicalName);
    seen[question.logicalName] = answers[question.logicalName];
  }
  return { questions, pages };
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const isScalar = (v: unknown): v is Scalar => ['string', 'number', 'boolean'].includes(typeof v);

/**
 * The first problem of a condition at `path` as "path: message", or null. `earlier` holds the
 * questions it may name: those before it in display order.
 */
function conditionProblem(
  c: unknown,
  path: string,
  earlier: ReadonlySet<string>,
  all: ReadonlySet<string>,
  self: string | undefined,
  depth = 0,
): string | null {
  if (!isObject(c)) return `${path}: must be an object`;
  if (depth > 20) return `${path}: is nested too deeply (at most 20 levels)`;
  const keys = Object.keys(c);
  for (const group of ['all', 'any'] as const) {
    if (!(group in c)) continue;
    const list = c[group];
    if (keys.length !== 1) return `${path}: "${group}" takes no other field`;
    if (!Array.isArray(list) || list.length === 0 || list.length > 50) {
      return `${path}/${group}: must be an array of 1 to 50 conditions`;
    }
    for (let i = 0; i < list.length; i++) {
      const p = conditionProblem(list[i], `${path}/${group}/${i}`, earlier, all, self, depth + 1);
      if (p) return p;
    }
    return null;
  }
  if ('not' in c) {
    if (keys.length !== 1) return `${path}: "not" takes no other field`;
    return conditionProblem(c.not, `${path}/not`, earlier, all, self, depth + 1);
  }
  const name = c.question;
  if (typeof name !== 'string') {
    return `${path}: must have "question", or be one of "not", "all", "any"`;
  }
  const ops = keys.filter((k) => k !== 'question');
  const op = ops[0];
  if (ops.length !== 1 || !(OPERATORS as readonly string[]).includes(op ?? '')) {
    return `${path}: needs exactly one of ${OPERATORS.join(', ')} beside "question"`;
  }
  const value = c[op as string];
  if (op === 'answered' && typeof value !== 'boolean')
    return `${path}/answered: must be true or false`;
  if (op === 'in' && (!Array.isArray(value) || value.length === 0 || !value.every(isScalar))) {
    return `${path}/in: must be a non-empty array of strings, numbers or booleans`;
  }
  if ((op === 'equals' || op === 'notEquals') && !isScalar(value)) {
    return `${path}/${op}: must be a string, number or boolean`;
  }
  if (name === self) return `${path}/question: "${name}" refers to its own question (a cycle)`;
  if (!all.has(name)) return `${path}/question: unknown question "${name}"`;
  if (!earlier.has(name)) {
    return `${path}/question: "${name}" is not an earlier question; a condition may only name questions shown before it`;
  }
  return null;
}

/**
 * The first problem of a definition's `pages` and `showIf`s as "path: message", or null: every
 * question on exactly one page, and each condition naming only questions before it (so no cycle
 * can be written). The shape of the rest is the JSON Schema's business.
 */
export function logicProblem(def: {
  questions: readonly Record<string, unknown>[];
  pages?: unknown;
}): string | null {
  const names = def.questions.map((q) => String(q.logicalName));
  const all = new Set(names);
  const pages = def.pages as { questions: string[]; showIf?: unknown }[] | undefined;
  if (pages) {
    const placed = new Map<string, string>();
    for (const [i, page] of pages.entries()) {
      for (const [j, name] of page.questions.entries()) {
        const at = `pages/${i}/questions/${j}`;
        if (!all.has(name)) return `${at}: unknown question "${name}"`;
        const before = placed.get(name);
        if (before) return `${at}: "${name}" is already on ${before}`;
        placed.set(name, `pages/${i}`);
      }
    }
    const missing = names.find((n) => !placed.has(n));
    if (missing !== undefined) return `pages: question "${missing}" is on no page`;
  }
  const index = new Map(def.questions.map((q, i) => [String(q.logicalName), i]));
  const earlier = new Set<string>();
  let current = -1;
  for (const { question, page } of displayOrder({
    questions: def.questions as unknown as { logicalName: string; showIf?: unknown }[],
    pages,
  })) {
    if (pages && page !== current) {
      current = page;
      const showIf = pages[page]?.showIf;
      const p =
        showIf === undefined
          ? null
          : conditionProblem(showIf, `pages/${page}/showIf`, earlier, all, undefined);
      if (p) return p;
    }
    if (question.showIf !== undefined) {
      const at = `questions/${index.get(question.logicalName) ?? 0}/showIf`;
      const p = conditionProblem(question.showIf, at, earlier, all, question.logicalName);
      if (p) return p;
    }
    earlier.add(question.logicalName);
  }
  return null;
}
