// Steps (`pages`) and conditions (`showIf`) as the visual builder changes them
// (docs/definition-format.md#steps-and-conditions). The builder lists the questions in the order
// people see them: while the form has steps, the questions list is kept in step order, so
// "Question 3" is the third question shown, and moving a question past the first or last question
// of its step moves it into the step beside it.
import type { Definition } from './definition-model.js';
import { isObject, nameOf, text } from './json-values.js';

export interface Page extends Record<string, unknown> {
  title?: string;
  questions: string[];
}

/** The steps, when the definition has a list of them the builder can edit; null otherwise. */
export function pagesOf(def: Definition): Page[] | null {
  const { pages } = def;
  if (!Array.isArray(pages)) return null;
  const ok = pages.every(
    (p) =>
      isObject(p) && Array.isArray(p.questions) && p.questions.every((n) => typeof n === 'string'),
  );
  return ok ? (pages as Page[]) : null;
}

/** The index of the step a question is on, or -1. */
export function stepOf(def: Definition, index: number): number {
  const name = nameOf(def.questions[index] ?? {});
  return pagesOf(def)?.findIndex((p) => p.questions.includes(name)) ?? -1;
}

/** A step's name as the builder shows it: "Step 2 (Company)". */
export function stepTitle(pages: readonly Page[], p: number): string {
  const title = text(pages[p]?.title);
  return `Step ${String(p + 1)}${title ? ` (${title})` : ''}`;
}

export function splitIntoSteps(def: Definition): Definition {
  return { ...def, pages: [{ questions: def.questions.map(nameOf) }] };
}

export function addStep(def: Definition): Definition {
  // Untitled ("Step 3 of 3" in the form) until it is named.
  return { ...def, pages: [...(pagesOf(def) ?? []), { questions: [] }] };
}

export function renameStep(def: Definition, p: number, title: string): Definition {
  const pages = (pagesOf(def) ?? []).map((page, n) => {
    if (n !== p) return page;
    const { title: _old, ...rest } = page;
    return title === '' ? { ...rest, questions: page.questions } : { ...page, title };
  });
  return { ...def, pages };
}

/**
 * Removes a step; its questions join the step before it (the first step's join the next). The
 * last step removed makes the form one page again.
 */
export function removeStep(def: Definition, p: number): Definition {
  const pages = pagesOf(def) ?? [];
  if (pages.length <= 1) {
    const { pages: _gone, ...rest } = def;
    return rest;
  }
  const moved = pages[p]?.questions ?? [];
  const into = p === 0 ? 1 : p - 1;
  const next = pages
    .map((page, n) => {
      if (n !== into) return page;
      const questions = p === 0 ? [...moved, ...page.questions] : [...page.questions, ...moved];
      return { ...page, questions };
    })
    .filter((_, n) => n !== p);
  return inStepOrder({ ...def, pages: next });
}

/** The questions list in step order (questions on no step last, as they were). */
export function inStepOrder(def: Definition): Definition {
  const pages = pagesOf(def);
  if (!pages) return def;
  const at = new Map<string, number>();
  let n = 0;
  for (const page of pages) for (const name of page.questions) if (!at.has(name)) at.set(name, n++);
  const order = def.questions.map((q, i) => ({ q, key: at.get(nameOf(q)) ?? n + i }));
  order.sort((a, b) => a.key - b.key);
  return { ...def, questions: order.map((o) => o.q) };
}

type Token = { step: number } | { name: string };

/** The form as a line: each step's marker, then its questions. */
function tokens(def: Definition, pages: readonly Page[]): Token[] {
  const known = new Set(def.questions.map(nameOf));
  const line: Token[] = [];
  pages.forEach((page, step) => {
    line.push({ step });
    for (const name of page.questions) if (known.has(name)) line.push({ name });
  });
  // A question on no step (written so under Advanced) joins the last step once it is moved.
  const placed = new Set(pages.flatMap((p) => p.questions));
  for (const q of def.questions) if (!placed.has(nameOf(q))) line.push({ name: nameOf(q) });
  return line;
}

function fromTokens(def: Definition, pages: readonly Page[], line: Token[]): Definition {
  const lists: string[][] = pages.map(() => []);
  let step = 0;
  for (const t of line) {
    if ('step' in t) step = t.step;
    else lists[step]?.push(t.name);
  }
  // Names on a step that no question has stay where they were: the check names them.
  const known = new Set(def.questions.map(nameOf));
  const next = pages.map((page, n) => ({
    ...page,
    questions: [...(lists[n] ?? []), ...page.questions.filter((name) => !known.has(name))],
  }));
  return inStepOrder({ ...def, pages: next });
}

/** Whether the question at `index` can move one place up (-1) or down (+1) among the steps. */
export function canMove(def: Definition, index: number, by: -1 | 1): boolean {
  const pages = pagesOf(def);
  if (!pages) return by < 0 ? index > 0 : index < def.questions.length - 1;
  const line = tokens(def, pages);
  const at = line.findIndex((t) => 'name' in t && t.name === nameOf(def.questions[index] ?? {}));
  return by < 0 ? at > 1 : at >= 0 && at < line.length - 1;
}

/**
 * Moves the question at `from` so that it takes the place of the question at `to` (dragged onto
 * it), or, for a step move (`to` undefined), one place `by` along the line of steps: the first
 * question of a step moved up becomes the last of the step before it.
 */
export function moveInSteps(
  def: Definition,
  from: number,
  target: { to: number } | { by: -1 | 1 },
): Definition {
  const pages = pagesOf(def);
  if (!pages) return def;
  const line = tokens(def, pages);
  const name = nameOf(def.questions[from] ?? {});
  const at = line.findIndex((t) => 'name' in t && t.name === name);
  if (at < 0) return def;
  const [moved] = line.splice(at, 1);
  if (!moved) return def;
  let place: number;
  if ('by' in target) {
    place = at + target.by;
    if (place < 1 || place > line.length) return def;
  } else {
    const onto = nameOf(def.questions[target.to] ?? {});
    const t = line.findIndex((x) => 'name' in x && x.name === onto);
    if (t < 0 || target.to === from) return def;
    place = target.to > from ? t + 1 : t;
  }
  line.splice(place, 0, moved);
  return fromTokens(def, pages, line);
}

/** Puts the question at `index` at the end of step `p`. */
export function setStep(def: Definition, index: number, p: number): Definition {
  const pages = pagesOf(def);
  if (!pages) return def;
  const name = nameOf(def.questions[index] ?? {});
  const next = pages.map((page, n) => {
    const questions = page.questions.filter((x) => x !== name);
    return { ...page, questions: n === p ? [...questions, name] : questions };
  });
  return inStepOrder({ ...def, pages: next });
}

/** After a question is added (at the end), duplicated (after its original) or deleted. */
export function placeQuestion(def: Definition, name: string, after?: string): Definition {
  const pages = pagesOf(def);
  if (!pages || pages.length === 0) return def;
  const host = after === undefined ? -1 : pages.findIndex((p) => p.questions.includes(after));
  const next = pages.map((page, n) => {
    if (host >= 0 ? n !== host : n !== pages.length - 1) return page;
    const questions = [...page.questions];
    const spot = after === undefined ? questions.length : questions.indexOf(after) + 1;
    questions.splice(spot, 0, name);
    return { ...page, questions };
  });
  return inStepOrder({ ...def, pages: next });
}

export function unplaceQuestion(def: Definition, name: string): Definition {
  const pages = pagesOf(def);
  if (!pages) return def;
  return {
    ...def,
    pages: pages.map((p) => ({ ...p, questions: p.questions.filter((x) => x !== name) })),
  };
}

/**
 * A question's logicalName changed (it follows its label until saved): the steps and every
 * condition that named it follow, so renaming never breaks the logic.
 */
export function renameReferences(def: Definition, from: string, to: string): Definition {
  if (from === to || from === '') return def;
  const follow = (c: unknown): unknown => {
    if (Array.isArray(c)) return c.map(follow);
    if (!isObject(c)) return c;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(c)) {
      out[k] =
        k === 'question' && v === from
          ? to
          : k === 'not' || k === 'all' || k === 'any'
            ? follow(v)
            : v;
    }
    return out;
  };
  const questions = def.questions.map((q) =>
    q.showIf === undefined ? q : { ...q, showIf: follow(q.showIf) },
  );
  const pages = pagesOf(def);
  return {
    ...def,
    questions,
    ...(pages && {
      pages: pages.map((p) => ({
        ...p,
        questions: p.questions.map((n) => (n === from ? to : n)),
        ...(p.showIf !== undefined && { showIf: follow(p.showIf) }),
      })),
    }),
  };
}
