// The visual form builder (docs/forms-web.md#the-definition-editor): the definition's intro,
// questions, thanks text and submit fields as form controls. It edits the same definition as the
// JSON editor (the definition editor keeps one text and both views read it), so the two stay in
// step both ways. Questions are added, moved (buttons, or dragged), duplicated and deleted; each
// one's problems are listed under it by name ("Question 3 (Email)").
import { useRef, useState } from 'preact/hooks';
import type { SchemaProblem } from '../schema-check.js';
import { ConditionEditor } from './condition-editor.js';
import {
  addOption,
  addQuestion,
  deleteQuestion,
  duplicateQuestion,
  moveQuestion,
  optionsOf,
  type Definition,
  type Option,
  type Question,
  relabel,
  relabelOption,
  setField,
} from './definition-model.js';
import { Problems, problemsAt } from './problems.js';
import { type FieldSpec, QUESTION_TYPES, questionType } from './question-types.js';
import { StepsEditor } from './steps-editor.js';
import { canMove, moveInSteps, pagesOf, setStep, stepOf, stepTitle } from './steps-model.js';
import { isObject, text } from './json-values.js';

export interface BuilderProps {
  definition: Definition;
  /** The saved definition: its logicalNames and option values never change by themselves. */
  saved: Definition | null;
  problems: SchemaProblem[];
  onChange: (next: Definition) => void;
}

export function Builder(props: BuilderProps) {
  const { definition: def, onChange } = props;
  const [announcement, setAnnouncement] = useState('');
  const list = useRef<HTMLOListElement>(null);
  const dragging = useRef<number | null>(null);
  const savedNames = new Set((props.saved?.questions ?? []).map((q) => text(q.logicalName)));
  const intro = isObject(def.intro) ? def.intro : {};
  const pages = pagesOf(def);
  const problemsOf = (prefix: (string | number)[]) => problemsAt(props.problems, prefix);

  /** After a move, keyboard focus stays on the same button of the moved question. */
  const focusLater = (index: number, selector: string) => {
    requestAnimationFrame(() => {
      const card = list.current?.children[index];
      const target =
        card?.querySelector<HTMLElement>(selector) ?? card?.querySelector<HTMLElement>('h3');
      target?.focus();
    });
  };
  const title = (i: number, q: Question = def.questions[i] ?? {}) =>
    `Question ${String(i + 1)} (${text(q.label) || text(q.logicalName) || 'untitled'})`;

  /**
   * Moves a question onto another's place (dragged), one place up or down (with steps: past the
   * edge of its step into the next one), or to the end of a step. Keyboard focus stays on the
   * same control.
   */
  const move = (
    from: number,
    target: { to: number } | { by: -1 | 1 } | { step: number },
    selector: string,
  ) => {
    const q = def.questions[from];
    const next =
      'step' in target
        ? setStep(def, from, target.step)
        : pages
          ? moveInSteps(def, from, target)
          : 'to' in target
            ? moveQuestion(def, from, target.to)
            : moveQuestion(def, from, from + target.by);
    if (next === def || !q) return;
    const at = next.questions.findIndex((x) => x.logicalName === q.logicalName);
    onChange(next);
    const step = pagesOf(next) && stepOf(next, at);
    setAnnouncement(
      `${text(q.label) || 'Question'} moved to position ${String(at + 1)} of ${String(def.questions.length)}${
        step !== null && step >= 0 ? `, ${stepTitle(pagesOf(next) ?? [], step)}` : ''
      }.`,
    );
    focusLater(at, selector);
  };

  return (
    <div class="builder">
      <section class="builder-part" aria-labelledby="b-intro">
        <h3 id="b-intro">Intro</h3>
        <label for="b-title">Title</label>
        <input
          id="b-title"
          value={text(intro.title)}
          onInput={(e) => {
            onChange({ ...def, intro: { ...intro, title: e.currentTarget.value } });
          }}
        />
        <label for="b-text">Text under the title</label>
        <textarea
          id="b-text"
          rows={2}
          value={text(intro.text)}
          onInput={(e) => {
            const v = e.currentTarget.value;
            const { text: _old, ...rest } = intro;
            onChange({ ...def, intro: v === '' ? rest : { ...rest, text: v } });
          }}
        />
        <Problems def={def} list={problemsOf(['intro'])} />
      </section>

      <StepsEditor
        def={def}
        problems={props.problems}
        onChange={(next, said) => {
          onChange(next);
          if (said) setAnnouncement(said);
        }}
      />

      <h3 class="builder-heading">Questions</h3>
      <p class="muted small">
        Move a question with its Move up and Move down buttons, or drag it by its heading.
      </p>
      <ol class="builder-questions" ref={list}>
        {def.questions.map((q, i) => (
          <li
            key={i}
            class="builder-card"
            onDragOver={(e) => {
              e.preventDefault();
            }}
            onDrop={(e) => {
              e.preventDefault();
              const from = dragging.current;
              dragging.current = null;
              if (from !== null) move(from, { to: i }, 'h3');
            }}
          >
            <div
              class="builder-card-head"
              draggable
              onDragStart={(e) => {
                dragging.current = i;
                e.dataTransfer?.setData('text/plain', String(i));
              }}
            >
              <h3 tabIndex={-1} id={`b-q${String(i)}`}>
                <span aria-hidden="true" class="grip">
                  ⋮⋮
                </span>
                {title(i, q)}
              </h3>
              <span class="muted small">
                {questionType(q.type)?.name ?? text(q.type)}
                {pages && stepOf(def, i) >= 0 && ` · ${stepTitle(pages, stepOf(def, i))}`}
              </span>
            </div>
            <div class="builder-tools" role="group" aria-label={`${title(i, q)} tools`}>
              <button
                type="button"
                class="secondary"
                data-tool="up"
                disabled={!canMove(def, i, -1)}
                aria-label={`Move up: ${title(i, q)}`}
                onClick={() => {
                  move(i, { by: -1 }, '[data-tool=up]');
                }}
              >
                Move up
              </button>
              <button
                type="button"
                class="secondary"
                data-tool="down"
                disabled={!canMove(def, i, 1)}
                aria-label={`Move down: ${title(i, q)}`}
                onClick={() => {
                  move(i, { by: 1 }, '[data-tool=down]');
                }}
              >
                Move down
              </button>
              <button
                type="button"
                class="secondary"
                aria-label={`Duplicate ${title(i, q)}`}
                onClick={() => {
                  onChange(duplicateQuestion(def, i));
                  setAnnouncement(`${title(i, q)} duplicated as question ${String(i + 2)}.`);
                  focusLater(i + 1, 'h3');
                }}
              >
                Duplicate
              </button>
              <button
                type="button"
                class="secondary danger"
                aria-label={`Delete ${title(i, q)}`}
                onClick={() => {
                  onChange(deleteQuestion(def, i));
                  setAnnouncement(`${title(i, q)} deleted.`);
                  focusLater(Math.min(i, def.questions.length - 2), 'h3');
                }}
              >
                Delete
              </button>
            </div>
            <QuestionFields
              def={def}
              index={i}
              saved={props.saved}
              savedNames={savedNames}
              onChange={onChange}
            />
            <div class="builder-fields">
              {pages && (
                <StepPicker
                  id={`b-q${String(i)}-step`}
                  pages={pages}
                  step={stepOf(def, i)}
                  onPick={(p) => {
                    move(i, { step: p }, '[id$=-step]');
                  }}
                />
              )}
              <ConditionEditor
                def={def}
                index={i}
                title={(other) => title(def.questions.indexOf(other), other)}
                onChange={(showIf) => {
                  onChange(setField(def, i, 'showIf', showIf));
                }}
              />
            </div>
            <Problems def={def} list={problemsOf(['questions', i])} />
          </li>
        ))}
      </ol>
      <AddQuestion
        onAdd={(type) => {
          const kind = questionType(type);
          onChange(
            addQuestion(def, {
              type,
              label: kind?.name ?? type,
              ...structuredClone(kind?.start ?? {}),
            }),
          );
          setAnnouncement(`Question ${String(def.questions.length + 1)} added.`);
          focusLater(def.questions.length, 'input');
        }}
      />

      <section class="builder-part" aria-labelledby="b-end">
        <h3 id="b-end">After sending</h3>
        <label for="b-thanks">Thank-you text</label>
        <textarea
          id="b-thanks"
          rows={2}
          value={text(def.thanks)}
          onInput={(e) => {
            const v = e.currentTarget.value;
            const next: Definition = { ...def, thanks: v };
            if (v === '') delete next.thanks;
            onChange(next);
          }}
        />
        <Problems def={def} list={problemsOf(['thanks'])} />
        <SubmitFields def={def} onChange={onChange} />
        <Problems def={def} list={problemsOf(['submitFields'])} />
      </section>
      <p class="sr" role="status">
        {announcement}
      </p>
    </div>
  );
}

function AddQuestion(props: { onAdd: (type: string) => void }) {
  const [type, setType] = useState(QUESTION_TYPES[0]?.type ?? 'text');
  return (
    <div class="row builder-add">
      <span class="field-inline">
        <label for="b-add-type">New question type</label>
        <select
          id="b-add-type"
          value={type}
          onChange={(e) => {
            setType(e.currentTarget.value);
          }}
        >
          {QUESTION_TYPES.map((t) => (
            <option key={t.type} value={t.type}>
              {t.name}
            </option>
          ))}
        </select>
      </span>
      <button
        type="button"
        onClick={() => {
          props.onAdd(type);
        }}
      >
        Add question
      </button>
    </div>
  );
}

function QuestionFields(props: {
  def: Definition;
  index: number;
  saved: Definition | null;
  savedNames: ReadonlySet<string>;
  onChange: (next: Definition) => void;
}) {
  const { def, index, onChange } = props;
  const q = def.questions[index] ?? {};
  const kind = questionType(q.type);
  const id = (field: string) => `b-q${String(index)}-${field}`;
  const set = (key: string, value: unknown) => {
    onChange(setField(def, index, key, value));
  };
  const stringField = (
    key: string,
    label: string,
    opts: { multiline?: boolean; help?: string } = {},
  ) => (
    <>
      <label for={id(key)}>{label}</label>
      {opts.multiline ? (
        <textarea
          id={id(key)}
          rows={2}
          value={text(q[key])}
          onInput={(e) => {
            set(key, e.currentTarget.value || undefined);
          }}
        />
      ) : (
        <input
          id={id(key)}
          value={text(q[key])}
          aria-describedby={opts.help ? id(`${key}-help`) : undefined}
          onInput={(e) => {
            set(key, e.currentTarget.value || undefined);
          }}
        />
      )}
      {opts.help && (
        <p id={id(`${key}-help`)} class="muted small field-help">
          {opts.help}
        </p>
      )}
    </>
  );
  if (!kind) {
    return (
      <div class="builder-fields">
        <p class="muted">
          The builder does not edit “{text(q.type)}” questions: edit this one under Advanced (JSON).
          It is kept as it is.
        </p>
      </div>
    );
  }
  return (
    <div class="builder-fields">
      <label for={id('label')}>Question</label>
      <input
        id={id('label')}
        value={text(q.label)}
        onInput={(e) => {
          onChange(relabel(def, index, e.currentTarget.value, props.savedNames));
        }}
      />
      {stringField('help', 'Help text', { multiline: true })}
      <div class="check">
        <input
          id={id('required')}
          type="checkbox"
          checked={q.required === true}
          onChange={(e) => {
            set('required', e.currentTarget.checked ? true : undefined);
          }}
        />
        <label for={id('required')}>
          {q.type === 'consent' ? 'Must be ticked' : 'An answer is required'}
        </label>
      </div>
      {kind.placeholder && stringField('placeholder', 'Placeholder')}
      {kind.options && (
        <OptionsEditor
          index={index}
          title={text(q.label)}
          options={optionsOf(q)}
          saved={
            new Set(
              optionsOf(
                props.saved?.questions.find((s) => s.logicalName === q.logicalName) ?? {},
              ).map((o) => o.value),
            )
          }
          onChange={(options) => {
            set('options', options);
          }}
        />
      )}
      {kind.fields.map((f) => (
        <Field
          key={f.key}
          spec={f}
          id={id(f.key)}
          value={q[f.key]}
          onChange={(v) => {
            set(f.key, v);
          }}
        />
      ))}
      <details class="builder-more">
        <summary>Field name in submissions: {text(q.logicalName)}</summary>
        {stringField('logicalName', 'Field name', {
          help: 'The key of this answer in submissions, webhooks and exports: letters, digits, _ . and -. Made from the question until the form is saved; change it before submissions arrive.',
        })}
      </details>
    </div>
  );
}

function Field(props: {
  spec: FieldSpec;
  id: string;
  value: unknown;
  onChange: (v: unknown) => void;
}) {
  const { spec, id, value } = props;
  if (spec.kind === 'boolean') {
    return (
      <div class="check">
        <input
          id={id}
          type="checkbox"
          checked={value === true}
          onChange={(e) => {
            props.onChange(e.currentTarget.checked ? true : undefined);
          }}
        />
        <label for={id}>{spec.label}</label>
      </div>
    );
  }
  const help = spec.help && (
    <p id={`${id}-help`} class="muted small field-help">
      {spec.help}
    </p>
  );
  if (spec.kind === 'list') {
    // Taken when the field is left (change, not input): while typing, "image/png, " would lose
    // its comma if every keystroke went through the list and back.
    return (
      <>
        <label for={id}>{spec.label}</label>
        <input
          id={id}
          value={Array.isArray(value) ? value.join(', ') : ''}
          aria-describedby={spec.help ? `${id}-help` : undefined}
          onChange={(e) => {
            const list = e.currentTarget.value
              .split(',')
              .map((part) => part.trim())
              .filter((part) => part !== '');
            props.onChange(list.length ? list : undefined);
          }}
        />
        {help}
      </>
    );
  }
  const numeric = spec.kind === 'integer' || spec.kind === 'number';
  return (
    <>
      <label for={id}>{spec.label}</label>
      <input
        id={id}
        // One input for three kinds: preact's own types want one literal per element (the
        // assertion), which lint, reading preact's types through the root project, does not see.
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion
        type={(numeric ? 'number' : spec.kind === 'date' ? 'date' : 'text') as 'text'}
        step={spec.kind === 'integer' ? 1 : spec.kind === 'number' ? 'any' : undefined}
        value={typeof value === 'number' || typeof value === 'string' ? String(value) : ''}
        aria-describedby={spec.help ? `${id}-help` : undefined}
        onInput={(e) => {
          const raw = e.currentTarget.value;
          if (raw === '') props.onChange(undefined);
          else if (numeric) {
            const n = Number(raw);
            if (Number.isFinite(n)) props.onChange(n);
          } else props.onChange(raw);
        }}
      />
      {help}
    </>
  );
}

function OptionsEditor(props: {
  index: number;
  title: string;
  options: Option[];
  saved: ReadonlySet<string>;
  onChange: (options: Option[]) => void;
}) {
  const { options } = props;
  const id = (n: number, f: string) => `b-q${String(props.index)}-o${String(n)}-${f}`;
  return (
    <fieldset class="builder-options">
      <legend>Options</legend>
      <p class="muted small">
        Each option's value is what submissions store; it is made from its label until the form is
        saved.
      </p>
      {options.map((o, n) => (
        <div key={n} class="builder-option">
          <span class="field-inline grow">
            <label for={id(n, 'label')}>Option {n + 1}</label>
            <input
              id={id(n, 'label')}
              value={o.label}
              onInput={(e) => {
                props.onChange(relabelOption(options, n, e.currentTarget.value, props.saved));
              }}
            />
          </span>
          <span class="field-inline">
            <label for={id(n, 'value')}>Value</label>
            <input
              id={id(n, 'value')}
              value={o.value}
              onInput={(e) => {
                props.onChange(
                  options.map((x, m) => (m === n ? { ...x, value: e.currentTarget.value } : x)),
                );
              }}
            />
          </span>
          <button
            type="button"
            class="secondary"
            aria-label={`Remove option ${String(n + 1)} (${o.label})`}
            onClick={() => {
              props.onChange(options.filter((_, m) => m !== n));
            }}
          >
            Remove
          </button>
        </div>
      ))}
      <button
        type="button"
        class="secondary"
        onClick={() => {
          props.onChange(addOption(options));
        }}
      >
        Add option
      </button>
    </fieldset>
  );
}

function SubmitFields(props: { def: Definition; onChange: (next: Definition) => void }) {
  const { def } = props;
  const entries = Object.entries(isObject(def.submitFields) ? def.submitFields : {});
  const write = (next: [string, unknown][]) => {
    const copy: Definition = { ...def };
    if (next.length === 0) delete copy.submitFields;
    else copy.submitFields = Object.fromEntries(next);
    props.onChange(copy);
  };
  return (
    <fieldset class="builder-options">
      <legend>Submit fields</legend>
      <p class="muted small">Sent back untouched with every submission, e.g. source = website.</p>
      {entries.map(([k, v], n) => (
        <div key={n} class="builder-option">
          <span class="field-inline grow">
            <label for={`b-sf${String(n)}-name`}>Name</label>
            <input
              id={`b-sf${String(n)}-name`}
              value={k}
              onInput={(e) => {
                write(entries.map((x, m) => (m === n ? [e.currentTarget.value, x[1]] : x)));
              }}
            />
          </span>
          <span class="field-inline grow">
            <label for={`b-sf${String(n)}-value`}>Value</label>
            <input
              id={`b-sf${String(n)}-value`}
              value={text(v)}
              onInput={(e) => {
                write(entries.map((x, m) => (m === n ? [x[0], e.currentTarget.value] : x)));
              }}
            />
          </span>
          <button
            type="button"
            class="secondary"
            aria-label={`Remove submit field ${k}`}
            onClick={() => {
              write(entries.filter((_, m) => m !== n));
            }}
          >
            Remove
          </button>
        </div>
      ))}
      <button
        type="button"
        class="secondary"
        onClick={() => {
          const taken = new Set(entries.map(([k]) => k));
          let name = 'source';
          for (let n = 2; taken.has(name); n++) name = `field-${String(n)}`;
          write([...entries, [name, '']]);
        }}
      >
        Add submit field
      </button>
    </fieldset>
  );
}

function StepPicker(props: {
  id: string;
  pages: NonNullable<ReturnType<typeof pagesOf>>;
  step: number;
  onPick: (p: number) => void;
}) {
  return (
    <>
      <label for={props.id}>Step</label>
      <select
        id={props.id}
        value={String(props.step)}
        onChange={(e) => {
          props.onPick(Number(e.currentTarget.value));
        }}
      >
        {props.step < 0 && <option value="-1">On no step</option>}
        {props.pages.map((_, p) => (
          <option key={p} value={String(p)}>
            {stepTitle(props.pages, p)}
          </option>
        ))}
      </select>
    </>
  );
}
