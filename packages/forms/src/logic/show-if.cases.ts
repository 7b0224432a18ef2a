// The evaluator's cases as one table (docs/definition-format.md#steps-and-conditions), run by the
// server's tests (the evaluator, and ingest through the real server) and by the runtime's, so both
// sides are held to the same answers.
import type { Condition } from './show-if.js';

export interface ShowIfCase {
  name: string;
  showIf: Condition;
  /** Answers to the earlier questions: kind (choice), country (choice), company (text), seats (number), topics (multiple choice). */
  answers: Record<string, string | number | string[]>;
  shown: boolean;
}

const business = { question: 'kind', equals: 'business' } as const;

export const SHOW_IF_CASES: readonly ShowIfCase[] = [
  { name: 'equals, same value', showIf: business, answers: { kind: 'business' }, shown: true },
  { name: 'equals, other value', showIf: business, answers: { kind: 'private' }, shown: false },
  { name: 'equals, unanswered', showIf: business, answers: {}, shown: false },
  {
    name: 'notEquals, other value',
    showIf: { question: 'kind', notEquals: 'private' },
    answers: { kind: 'business' },
    shown: true,
  },
  {
    name: 'notEquals, same value',
    showIf: { question: 'kind', notEquals: 'private' },
    answers: { kind: 'private' },
    shown: false,
  },
  {
    name: 'notEquals, unanswered',
    showIf: { question: 'kind', notEquals: 'private' },
    answers: {},
    shown: true,
  },
  {
    name: 'in, listed',
    showIf: { question: 'country', in: ['dk', 'se'] },
    answers: { country: 'se' },
    shown: true,
  },
  {
    name: 'in, not listed',
    showIf: { question: 'country', in: ['dk', 'se'] },
    answers: { country: 'no' },
    shown: false,
  },
  {
    name: 'answered true, text given',
    showIf: { question: 'company', answered: true },
    answers: { company: 'Acme' },
    shown: true,
  },
  {
    name: 'answered true, blank text',
    showIf: { question: 'company', answered: true },
    answers: { company: '   ' },
    shown: false,
  },
  {
    name: 'answered false, unanswered',
    showIf: { question: 'company', answered: false },
    answers: {},
    shown: true,
  },
  {
    name: 'equals a number',
    showIf: { question: 'seats', equals: 5 },
    answers: { seats: 5 },
    shown: true,
  },
  {
    name: 'equals a number sent as text (plain HTML post)',
    showIf: { question: 'seats', equals: 5 },
    answers: { seats: '5' },
    shown: true,
  },
  {
    name: 'equals on a multiple choice: one of the ticked options',
    showIf: { question: 'topics', equals: 'support' },
    answers: { topics: ['sales', 'support'] },
    shown: true,
  },
  {
    name: 'in on a multiple choice: none ticked',
    showIf: { question: 'topics', in: ['support'] },
    answers: { topics: [] },
    shown: false,
  },
  { name: 'not', showIf: { not: business }, answers: { kind: 'business' }, shown: false },
  {
    name: 'all, every one holds',
    showIf: { all: [business, { question: 'country', in: ['dk'] }] },
    answers: { kind: 'business', country: 'dk' },
    shown: true,
  },
  {
    name: 'all, one fails',
    showIf: { all: [business, { question: 'country', in: ['dk'] }] },
    answers: { kind: 'business', country: 'se' },
    shown: false,
  },
  {
    name: 'any, one holds',
    showIf: { any: [business, { question: 'country', in: ['dk'] }] },
    answers: { kind: 'private', country: 'dk' },
    shown: true,
  },
  {
    name: 'any, none holds',
    showIf: { any: [business, { question: 'country', in: ['dk'] }] },
    answers: { kind: 'private', country: 'se' },
    shown: false,
  },
  {
    name: 'nested: not any',
    showIf: { not: { any: [business, { question: 'company', answered: true }] } },
    answers: { kind: 'private' },
    shown: true,
  },
];

/** The definition the cases are asked against: the earlier questions, then `target`. */
export function caseDefinition(
  showIf: Condition,
  required = false,
): { intro: { title: string }; questions: ({ logicalName: string } & Record<string, unknown>)[] } {
  const choice = (logicalName: string, values: string[], multiple = false) => ({
    logicalName,
    type: 'choice',
    label: logicalName,
    multiple,
    options: values.map((value) => ({ value, label: value })),
  });
  return {
    intro: { title: 'Logic' },
    questions: [
      choice('kind', ['business', 'private']),
      choice('country', ['dk', 'se', 'no']),
      { logicalName: 'company', type: 'text', label: 'Company' },
      { logicalName: 'seats', type: 'number', label: 'Seats' },
      choice('topics', ['sales', 'support'], true),
      { logicalName: 'target', type: 'text', label: 'Target', required, showIf },
    ],
  };
}
