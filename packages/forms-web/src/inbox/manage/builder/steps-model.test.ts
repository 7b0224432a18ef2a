// The builder's steps and conditions as data (docs/forms-web.md#steps-and-conditions): every
// change keeps the questions in step order and every step and condition naming them.
import { describe, expect, it } from 'vitest';
import {
  addQuestion,
  deleteQuestion,
  duplicateQuestion,
  relabel,
  setField,
  type Definition,
} from './definition-model.js';
import { canMove, moveInSteps, removeStep, setStep, splitIntoSteps } from './steps-model.js';

const q = (name: string, extra: object = {}) => ({
  logicalName: name,
  type: 'text',
  label: name.toUpperCase(),
  ...extra,
});
const SECOND_IF = { not: { question: 'b', answered: true } };
const FORM: Definition = {
  questions: [q('a'), q('b'), q('c', { showIf: { question: 'a', equals: 'x' } }), q('d')],
  pages: [
    { title: 'One', questions: ['a', 'b'] },
    { questions: ['c', 'd'], showIf: SECOND_IF },
  ],
};
const order = (d: Definition) => d.questions.map((x) => x.logicalName);

describe('moves among steps', () => {
  it('moves past the edge of a step into the next one, and back', () => {
    const down = moveInSteps(FORM, 1, { by: 1 });
    expect(down.pages).toEqual([
      { title: 'One', questions: ['a'] },
      { questions: ['b', 'c', 'd'], showIf: SECOND_IF },
    ]);
    expect(order(down)).toEqual(['a', 'b', 'c', 'd']);
    expect(moveInSteps(down, 1, { by: -1 })).toEqual(FORM);
    expect(order(moveInSteps(FORM, 3, { by: -1 }))).toEqual(['a', 'b', 'd', 'c']);
  });

  it('does not move the first question up or the last down', () => {
    expect(canMove(FORM, 0, -1)).toBe(false);
    expect(canMove(FORM, 3, 1)).toBe(false);
    expect(canMove(FORM, 2, -1)).toBe(true);
    expect(moveInSteps(FORM, 0, { by: -1 })).toBe(FORM);
  });

  it('a dragged question takes the place, and the step, of the one it is dropped on', () => {
    const dragged = moveInSteps(FORM, 3, { to: 0 });
    expect(order(dragged)).toEqual(['d', 'a', 'b', 'c']);
    expect((dragged.pages as { questions: string[] }[]).map((p) => p.questions)).toEqual([
      ['d', 'a', 'b'],
      ['c'],
    ]);
  });

  it('a question put on another step goes to its end, the list in step order', () => {
    const moved = setStep(FORM, 0, 1);
    expect(order(moved)).toEqual(['b', 'c', 'd', 'a']);
  });
});

describe('steps', () => {
  it('splitting puts every question on one step; removing the last step makes one page', () => {
    const split = splitIntoSteps({ questions: FORM.questions });
    expect(split.pages).toEqual([{ questions: ['a', 'b', 'c', 'd'] }]);
    expect(removeStep(split, 0)).toEqual({ questions: FORM.questions });
  });

  it("a removed step's questions join the step before it (the first step's, the next)", () => {
    expect((removeStep(FORM, 1).pages as { questions: string[] }[])[0]?.questions).toEqual([
      'a',
      'b',
      'c',
      'd',
    ]);
    const first = removeStep(FORM, 0);
    expect((first.pages as { questions: string[] }[])[0]?.questions).toEqual(['a', 'b', 'c', 'd']);
  });

  it('added, duplicated and deleted questions keep their steps', () => {
    const added = addQuestion(FORM, { type: 'text', label: 'E' });
    expect((added.pages as { questions: string[] }[])[1]?.questions).toEqual(['c', 'd', 'e']);
    const copied = duplicateQuestion(FORM, 0);
    expect((copied.pages as { questions: string[] }[])[0]?.questions).toEqual(['a', 'a-copy', 'b']);
    const deleted = deleteQuestion(FORM, 1);
    expect((deleted.pages as { questions: string[] }[])[0]?.questions).toEqual(['a']);
  });
});

describe('renames', () => {
  it("a question's new name is followed by its step and the conditions that name it", () => {
    const renamed = setField(FORM, 1, 'logicalName', 'bee');
    expect((renamed.pages as { questions: string[] }[])[0]?.questions).toEqual(['a', 'bee']);
    expect((renamed.pages as { showIf?: unknown }[])[1]?.showIf).toEqual({
      not: { question: 'bee', answered: true },
    });
    const relabelled = relabel(
      { questions: [q('a', { label: '' }), q('c', { showIf: { question: 'a', equals: 1 } })] },
      0,
      'Kind',
      new Set(),
    );
    expect(relabelled.questions[1]?.showIf).toEqual({ question: 'kind', equals: 1 });
  });

  it('not onto the name of another question (that would take its references along)', () => {
    const clash = setField(FORM, 1, 'logicalName', 'a');
    expect((clash.pages as { questions: string[] }[])[0]?.questions).toEqual(['a', 'b']);
    expect(clash.questions[2]?.showIf).toEqual({ question: 'a', equals: 'x' });
  });
});
