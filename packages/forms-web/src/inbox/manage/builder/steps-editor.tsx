// The builder's steps (docs/forms-web.md#steps-and-conditions): split the form into steps, add,
// rename and remove one; which step a question is on is chosen on the question's card.
import type { SchemaProblem } from '../schema-check.js';
import type { Definition } from './definition-model.js';
import { Problems, problemsAt } from './problems.js';
import {
  addStep,
  pagesOf,
  removeStep,
  renameStep,
  splitIntoSteps,
  stepTitle,
} from './steps-model.js';

export function StepsEditor(props: {
  def: Definition;
  problems: readonly SchemaProblem[];
  onChange: (next: Definition, announcement: string) => void;
}) {
  const { def, onChange } = props;
  const pages = pagesOf(def);
  if (def.pages !== undefined && !pages) {
    return (
      <section class="builder-part" aria-labelledby="b-steps">
        <h3 id="b-steps">Steps</h3>
        <p class="warning">
          The steps are not a list the builder can show: fix them under Advanced (JSON).
        </p>
        <Problems def={def} list={problemsAt(props.problems, ['pages'])} />
      </section>
    );
  }
  return (
    <section class="builder-part" aria-labelledby="b-steps">
      <h3 id="b-steps">Steps</h3>
      {!pages ? (
        <p class="muted small">
          The form is one page. Split it into steps to show a few questions at a time, with Back and
          Next.
        </p>
      ) : (
        <p class="muted small">
          People see one step at a time. Choose each question's step on its card; a question moved
          past the first or last question of its step joins the step beside it.
        </p>
      )}
      {pages && (
        <ol class="builder-steps">
          {pages.map((page, p) => {
            const count = page.questions.length;
            return (
              <li key={p} class="builder-step">
                <span class="field-inline grow">
                  <label for={`b-p${String(p)}-title`}>Step {p + 1} title</label>
                  <input
                    id={`b-p${String(p)}-title`}
                    value={page.title ?? ''}
                    onInput={(e) => {
                      onChange(renameStep(def, p, e.currentTarget.value), '');
                    }}
                  />
                </span>
                <span class="muted small">
                  {count} {count === 1 ? 'question' : 'questions'}
                </span>
                <button
                  type="button"
                  class="secondary danger"
                  aria-label={`Remove ${stepTitle(pages, p)}`}
                  onClick={() => {
                    onChange(
                      removeStep(def, p),
                      pages.length === 1
                        ? 'Steps removed: the form is one page.'
                        : `${stepTitle(pages, p)} removed; its questions joined ${stepTitle(pages, p === 0 ? 1 : p - 1)}.`,
                    );
                  }}
                >
                  Remove
                </button>
                <Problems def={def} list={problemsAt(props.problems, ['pages', p])} />
              </li>
            );
          })}
        </ol>
      )}
      {pages && <Problems def={def} list={problemsAt(props.problems, ['pages'], true)} />}
      <p>
        <button
          type="button"
          class="secondary"
          onClick={() => {
            if (pages) onChange(addStep(def), `Step ${String(pages.length + 1)} added.`);
            else onChange(splitIntoSteps(def), 'The form has one step; add more.');
          }}
        >
          {pages ? 'Add step' : 'Split into steps'}
        </button>
      </p>
    </section>
  );
}
