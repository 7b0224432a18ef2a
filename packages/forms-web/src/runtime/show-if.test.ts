// The runtime's side of the evaluator's table (docs/definition-format.md#steps-and-conditions):
// the same cases the server's tests run, through the module the runtime bundles.
import { caseDefinition, SHOW_IF_CASES } from '@havn/forms/show-if-cases';
import { visibility } from '@havn/forms/show-if';
import { describe, expect, test } from 'vitest';

describe('the show-if table, as the runtime evaluates it', () => {
  test.each(SHOW_IF_CASES)('$name', ({ showIf, answers, shown }) => {
    expect(visibility(caseDefinition(showIf), answers).questions.has('target')).toBe(shown);
  });
});
