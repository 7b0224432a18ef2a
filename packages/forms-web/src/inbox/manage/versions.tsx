// The definition's versions (1 to the current one; every version stays readable on the server),
// each with when it was saved, and what changed between any two of them.
import { useState } from 'preact/hooks';
import type { Api } from '../api.js';
import { formatDate } from '../format.js';
import { useLoad } from '../use-load.js';
import { Alert } from '../alert.js';
import { errorText } from './error-text.js';
import { definitionVersion, definitionVersions } from './form-admin.js';
import { type Change, diffJson } from './json-diff.js';
import { relativeTime } from './relative-time.js';

/** How many versions are listed before "Show all versions". */
const LISTED = 5;

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
  const [all, setAll] = useState(false);
  const dated = useLoad(
    () => definitionVersions(api, form),
    [api, form, current],
    () => undefined, // the settings page above signs out on a 401
  );
  const savedAt = new Map(dated.data?.map((v) => [v.version, v.createdAt]));

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
            {savedAt.has(v) ? `, ${formatDate(savedAt.get(v))}` : ''}
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
      {dated.data && (
        <ol class="plain-list" aria-label="Saved versions">
          {dated.data.slice(0, all ? undefined : LISTED).map((v) => (
            <li key={v.version}>
              <span>
                Version {v.version}
                {v.version === current ? ' (current)' : ''}
              </span>
              <span class="muted">
                saved{' '}
                <time dateTime={v.createdAt} title={formatDate(v.createdAt)}>
                  {relativeTime(v.createdAt)}
                </time>{' '}
                ({formatDate(v.createdAt)})
              </span>
            </li>
          ))}
        </ol>
      )}
      {dated.data && dated.data.length > LISTED && !all && (
        <button
          type="button"
          class="secondary"
          onClick={() => {
            setAll(true);
          }}
        >
          Show all {dated.data.length} versions
        </button>
      )}
      {current > 1 && (
        <form class="row" onSubmit={(e) => void compare(e)}>
          {select('v-from', 'From', from, setFrom)}
          {select('v-to', 'To', to, setTo)}
          <button type="submit" class="secondary">
            Show changes
          </button>
        </form>
      )}
      <Alert message={error} />
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
