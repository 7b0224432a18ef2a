// A part of the definition's problems, listed under the part of the builder they are about, each
// named as people read it ("Question 3 (Email), option 2 value: …").
import type { SchemaProblem } from '../schema-check.js';
import { type Definition, describePath } from './definition-model.js';

/** The problems whose path starts with `prefix` (all of them under it, for `exact` false). */
export function problemsAt(
  problems: readonly SchemaProblem[],
  prefix: (string | number)[],
  exact = false,
): SchemaProblem[] {
  return problems.filter(
    (p) =>
      prefix.every((part, n) => p.path[n] === part) && (!exact || p.path.length === prefix.length),
  );
}

export function Problems(props: { def: Definition; list: SchemaProblem[] }) {
  if (props.list.length === 0) return null;
  return (
    <ul class="builder-problems">
      {props.list.map((p, n) => (
        <li key={n} class="error">
          {describePath(props.def, p.path)}: {p.message}
        </li>
      ))}
    </ul>
  );
}
