// A question's condition on its card (docs/forms-web.md#steps-and-conditions): always shown, or
// "only when <an earlier question> is / is not <answer>", the answers of a choice or consent
// question offered as a list. A condition the builder does not edit is kept and can be removed.
import type { Definition, Question } from './definition-model.js';
import {
  answerChoices,
  earlierQuestions,
  type SimpleCondition,
  simpleCondition,
  startCondition,
  toCondition,
  typedValue,
} from './condition-model.js';
import { nameOf } from './json-values.js';

export function ConditionEditor(props: {
  def: Definition;
  index: number;
  /** "Question 3 (Email)": what the controls' names end with. */
  title: (q: Question) => string;
  onChange: (showIf: unknown) => void;
}) {
  const { def, index } = props;
  const q = def.questions[index] ?? {};
  const id = (f: string) => `b-q${String(index)}-if-${f}`;
  const earlier = earlierQuestions(def, index);
  const current = q.showIf;
  const simple = simpleCondition(current);
  const mode = current === undefined ? 'always' : simple ? 'when' : 'custom';
  const set = (c: SimpleCondition) => {
    props.onChange(toCondition(c));
  };

  return (
    <fieldset class="builder-condition">
      <legend>Condition</legend>
      <label for={id('mode')}>Show this question</label>
      <select
        id={id('mode')}
        value={mode}
        onChange={(e) => {
          const v = e.currentTarget.value;
          if (v === 'always') props.onChange(undefined);
          else if (v === 'when') {
            const start = startCondition(def, index);
            if (start) set(start);
          }
        }}
      >
        <option value="always">Always</option>
        <option value="when" disabled={earlier.length === 0}>
          Only when an earlier answer is…
        </option>
        {mode === 'custom' && (
          <option value="custom">With the condition written under Advanced</option>
        )}
      </select>
      {mode === 'always' && earlier.length === 0 && (
        <p class="muted small field-help">
          A condition can depend only on questions people see before this one.
        </p>
      )}
      {mode === 'custom' && (
        <p class="muted small field-help">
          <code>{JSON.stringify(current)}</code>: the builder keeps it as it is; change it under
          Advanced (JSON).
        </p>
      )}
      {simple && (
        <WhenFields id={id} simple={simple} earlier={earlier} title={props.title} onSet={set} />
      )}
    </fieldset>
  );
}

function WhenFields(props: {
  id: (f: string) => string;
  simple: SimpleCondition;
  earlier: Question[];
  title: (q: Question) => string;
  onSet: (c: SimpleCondition) => void;
}) {
  const { id, simple, earlier } = props;
  const other = earlier.find((e) => nameOf(e) === simple.question);
  const choices = answerChoices(other);
  // The condition may name a question that is not earlier (written under Advanced, or moved
  // since): it stays in the list, and the check says what is wrong with it.
  const names = earlier.map(nameOf);
  return (
    <div class="builder-when">
      <span class="field-inline">
        <label for={id('question')}>When the answer to</label>
        <select
          id={id('question')}
          value={simple.question}
          onChange={(e) => {
            const name = e.currentTarget.value;
            const next = earlier.find((x) => nameOf(x) === name);
            props.onSet({
              ...simple,
              question: name,
              value: answerChoices(next)?.[0]?.value ?? '',
            });
          }}
        >
          {!names.includes(simple.question) && (
            <option value={simple.question}>“{simple.question}” (not an earlier question)</option>
          )}
          {earlier.map((e) => (
            <option key={nameOf(e)} value={nameOf(e)}>
              {props.title(e)}
            </option>
          ))}
        </select>
      </span>
      <span class="field-inline">
        <label for={id('op')}>Is or is not</label>
        <select
          id={id('op')}
          value={simple.op}
          onChange={(e) => {
            props.onSet({
              ...simple,
              op: e.currentTarget.value === 'notEquals' ? 'notEquals' : 'equals',
            });
          }}
        >
          <option value="equals">is</option>
          <option value="notEquals">is not</option>
        </select>
      </span>
      <span class="field-inline grow">
        <label for={id('value')}>Answer</label>
        {choices ? (
          <select
            id={id('value')}
            value={String(simple.value)}
            onChange={(e) => {
              const picked = choices.find((c) => String(c.value) === e.currentTarget.value);
              if (picked) props.onSet({ ...simple, value: picked.value });
            }}
          >
            {!choices.some((c) => c.value === simple.value) && (
              <option value={String(simple.value)}>
                “{String(simple.value)}” (not an answer it offers)
              </option>
            )}
            {choices.map((c) => (
              <option key={String(c.value)} value={String(c.value)}>
                {c.label}
              </option>
            ))}
          </select>
        ) : (
          <input
            id={id('value')}
            value={String(simple.value)}
            onInput={(e) => {
              props.onSet({ ...simple, value: typedValue(other, e.currentTarget.value) });
            }}
          />
        )}
      </span>
    </div>
  );
}
