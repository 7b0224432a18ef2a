// The definition's versions (1 to the current one; every version stays readable on the server)
// and what changed between any two of them.
import { useState } from 'preact/hooks';
import type { Api } from '../api.js';
import { errorText } from './error-text.js';
import { definitionVersion } from './form-admin.js';
import { type Change, diffJson } from './json-diff.js';

const show = (v: unknown) => {
  const s = JSON.stringify(v);
  return s.length > 120 ? `${s.slice(0, 117)}…` : s;
};

const VERB: Record<Change['kind'], string> = {
  added: 'Added',
  removed: 'Removed',
  changed: 'Changed',
  moved: 'Moved',
};

export function Versions(props: { api: Api; form: string; current: number }) {
  const { api, form, current } = props;
  const [from, setFrom] = useState(Math.max(1, current - 1));
  const [to, setTo] = useState(current);
  const [changes, setChanges] = useState<Change[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const versions = Array.from({ length: current }, (_, n) => current - n);

  const compare = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      const [a, b] = await Promise.all([
        definitionVersion(api, form, from),
        definitionVersion(api, form, to),
      ]);
      setChanges(diffJson(a, b));
    } catch (err) {
      setError(errorText(err));
    }
  };
  const select = (id: string, label: string, value: number, set: (n: number) => void) => (
    <span class="field-inline">
      <label for={id}>{label}</label>
      <select
        id={id}
        value={value}
        onChange={(e) => {
          set(Number(e.currentTarget.value));
          setChanges(null);
        }}
      >
        {versions.map((v) => (
          <option key={v} value={v}>
            Version {v}
            {v === current ? ' (current)' : ''}
          </option>
        ))}
      </select>
    </span>
  );

  return (
    <section aria-labelledby="versions-title" class="versions">
      <h3 id="versions-title">Versions</h3>
      <p class="muted">
        {current} {current === 1 ? 'version' : 'versions'}; each submission keeps the version it was
        sent against.
      </p>
      {current > 1 && (
        <form class="row" onSubmit={(e) => void compare(e)}>
          {select('v-from', 'From', from, setFrom)}
          {select('v-to', 'To', to, setTo)}
          <button type="submit" class="secondary">
            Show changes
          </button>
        </form>
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {changes && (
        <div role="status" aria-live="polite">
          {changes.length === 0 ? (
            <p>
              No changes between version {from} and version {to}.
            </p>
          ) : (
            <ul class="changes">
              {changes.map((c, n) => (
                <li key={n} class={c.kind}>
                  <strong>{VERB[c.kind]}</strong> <code>{c.path}</code>
                  {c.kind === 'changed' && (
                    <>
                      : <del>{show(c.before)}</del> → <ins>{show(c.after)}</ins>
                    </>
                  )}
                  {c.kind === 'moved' &&
                    `: from position ${String(c.before)} to ${String(c.after)}`}
                  {c.kind === 'added' && (
                    <>
                      : <ins>{show(c.after)}</ins>
                    </>
                  )}
                  {c.kind === 'removed' && (
                    <>
                      : <del>{show(c.before)}</del>
                    </>
                  )}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </section>
  );
}
