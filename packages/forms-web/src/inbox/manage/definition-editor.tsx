// The definition editor: the visual builder by default, the JSON as "Advanced (JSON)"; both edit
// one text, so a change in either shows in the other. The draft is checked against the server's
// published JSON Schema as it changes, each problem named by its question ("Question 3 (Email)")
// and, in the JSON, written on its line; the real runtime previews the draft beside it; Save
// stores a new version, and an unchanged draft is not sent at all (the server would keep the
// version anyway).
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { Alert } from '../alert.js';
import { Builder } from './builder/builder.js';
import { asDefinition, describePath } from './builder/definition-model.js';
import { canonicalJson } from './canonical-json.js';
import { CodeEditor, type LineProblem } from './code-editor.js';
import { errorText } from './error-text.js';
import { saveDefinition } from './form-admin.js';
import type { TabProps } from './form-settings.js';
import { JsonSyntaxError, parseJson } from './json-lines.js';
import { Preview } from './preview.js';
import { checkDefinition, type SchemaProblem } from './schema-check.js';
import { Versions } from './versions.js';

/** Where the format is described, served beside the inbox (docs/definition-format.md). */
export const GUIDE_URL = '/guide/definition-format.md';

let schemaLoad: Promise<Record<string, unknown>> | null = null;
function loadSchema(): Promise<Record<string, unknown>> {
  schemaLoad ??= fetch('/schema/definition.json').then(async (res) => {
    if (!res.ok) throw new Error(`The definition schema could not be loaded (${res.status}).`);
    return (await res.json()) as Record<string, unknown>;
  });
  schemaLoad.catch(() => {
    schemaLoad = null; // try again next time
  });
  return schemaLoad;
}

function starter(title: string): unknown {
  return {
    intro: { title },
    questions: [
      { logicalName: 'name', type: 'text', label: 'Your name', required: true },
      { logicalName: 'email', type: 'email', label: 'Email', required: true },
    ],
    thanks: 'Thank you!',
  };
}

interface Checked {
  /** Problems by line, for the JSON view, named as people read them. */
  lines: LineProblem[];
  /** Problems by path, for the builder. */
  problems: SchemaProblem[];
  value: unknown;
  /** A JSON syntax error (the builder cannot show a draft that does not parse). */
  syntax: LineProblem | null;
}

function check(text: string, schema: Record<string, unknown> | null): Checked {
  try {
    const parsed = parseJson(text);
    const found = schema ? checkDefinition(schema, parsed.value) : [];
    // The same problem can be found twice (the schema requires some fields in two places).
    const seen = new Set<string>();
    const problems = found.filter((p) => {
      const key = `${p.path.join('/')} ${p.message}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
    const lines = problems
      .map((p) => ({
        line: parsed.lineOf(p.path),
        message: `${describePath(parsed.value, p.path)}: ${p.message}`,
      }))
      .sort((a, b) => a.line - b.line);
    return { lines, problems, value: parsed.value, syntax: null };
  } catch (err) {
    if (err instanceof JsonSyntaxError) {
      const syntax = { line: err.line, message: err.message };
      return { lines: [syntax], problems: [], value: undefined, syntax };
    }
    throw err;
  }
}

type View = 'builder' | 'json';
const VIEWS: { view: View; name: string }[] = [
  { view: 'builder', name: 'Builder' },
  { view: 'json', name: 'Advanced (JSON)' },
];

export function DefinitionEditor({ api, info, reload }: TabProps) {
  const { form } = info;
  const stored = info.definition;
  const [text, setText] = useState(() =>
    JSON.stringify(stored ?? starter(form.name || form.id), null, 2),
  );
  const [view, setView] = useState<View>('builder');
  const [schema, setSchema] = useState<Record<string, unknown> | null>(null);
  const [schemaError, setSchemaError] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const tabs = useRef<HTMLDivElement>(null);

  useEffect(() => {
    loadSchema().then(setSchema, (err: unknown) => {
      setSchemaError(errorText(err));
    });
  }, []);

  const checked = useMemo(() => check(text, schema), [text, schema]);
  const ok = checked.lines.length === 0 && schema !== null;
  // The preview shows the last draft without problems; kept in a ref (not state set by an
  // effect) so it is the draft's from the very render that checked it.
  const lastGood = useRef<unknown>(stored ?? null);
  if (ok) lastGood.current = checked.value;
  const shown = lastGood.current;

  // What this editor last saved, until the reload after a save brings it back as `stored`: a
  // second Save in between is then "No changes" too, not a second request.
  const [lastSaved, setLastSaved] = useState<{ json: string; version: number } | null>(null);
  const draftJson = ok ? canonicalJson(checked.value) : null;
  const unchangedFrom =
    draftJson === null
      ? null
      : lastSaved?.json === draftJson
        ? lastSaved.version
        : stored !== undefined && draftJson === canonicalJson(stored)
          ? form.definitionVersion
          : null;
  const unchanged = unchangedFrom !== null;
  const draft = asDefinition(checked.value);

  const save = async () => {
    setStatus(null);
    setError(null);
    if (!ok) {
      setError(
        `Fix the ${checked.lines.length === 1 ? 'problem' : `${String(checked.lines.length)} problems`} listed first.`,
      );
      return;
    }
    if (unchanged) {
      setStatus(`No changes: the definition stays at version ${String(unchangedFrom)}.`);
      return;
    }
    setBusy(true);
    try {
      const version = await saveDefinition(api, form.id, checked.value);
      setLastSaved({ json: canonicalJson(checked.value), version });
      setStatus(`Saved as version ${String(version)}.`);
      reload();
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  // Arrow keys move between the two tabs (the tabs pattern of WAI-ARIA).
  const onTabKey = (e: KeyboardEvent) => {
    if (e.key !== 'ArrowLeft' && e.key !== 'ArrowRight') return;
    e.preventDefault();
    const next = view === 'builder' ? 'json' : 'builder';
    setView(next);
    tabs.current?.querySelector<HTMLElement>(`#def-tab-${next}`)?.focus();
  };

  return (
    <>
      <p class="muted">
        Build the form with the builder, or write its JSON under Advanced: both edit the same draft.
        The format is described in the{' '}
        <a href={GUIDE_URL} target="_blank" rel="noopener">
          definition format guide
        </a>
        ; the draft is checked against the server's JSON Schema (
        <a href="/schema/definition.json">definition.json</a>) as it changes.
      </p>
      <Alert message={schemaError} />
      <div class="editor-grid">
        <div>
          <div class="tabs view-tabs" role="tablist" aria-label="Editor" ref={tabs}>
            {VIEWS.map((v) => (
              <button
                key={v.view}
                type="button"
                role="tab"
                id={`def-tab-${v.view}`}
                aria-selected={view === v.view}
                aria-controls={`def-panel-${v.view}`}
                tabIndex={view === v.view ? 0 : -1}
                class={view === v.view ? 'tab current' : 'tab'}
                onClick={() => {
                  setView(v.view);
                }}
                onKeyDown={onTabKey}
              >
                {v.name}
              </button>
            ))}
          </div>
          <div role="tabpanel" id={`def-panel-${view}`} aria-labelledby={`def-tab-${view}`}>
            {view === 'builder' &&
              (draft ? (
                <Builder
                  definition={draft}
                  saved={asDefinition(stored)}
                  problems={checked.problems}
                  onChange={(next) => {
                    setText(JSON.stringify(next, null, 2));
                    setStatus(null);
                  }}
                />
              ) : (
                <p class="warning">
                  The builder shows a definition once its JSON is an object with a list of
                  questions.
                  {checked.syntax &&
                    ` Line ${String(checked.syntax.line)}: ${checked.syntax.message}.`}{' '}
                  Fix it under Advanced (JSON).
                </p>
              ))}
            {view === 'json' && (
              <CodeEditor
                id="definition-json"
                label="Definition (JSON)"
                value={text}
                problems={checked.lines}
                onInput={(v) => {
                  setText(v);
                  setStatus(null);
                }}
              />
            )}
          </div>
          <ProblemSummary checked={checked} view={view} />
          <p class="row">
            <button type="button" disabled={busy} onClick={() => void save()}>
              Save definition
            </button>
            <span role="status">{status}</span>
          </p>
          <Alert message={error} />
        </div>
        {shown !== null && <Preview definition={shown} stale={!ok} />}
      </div>
      {form.definitionVersion !== null && form.definitionVersion > 0 && (
        <Versions api={api} form={form.id} current={form.definitionVersion} />
      )}
    </>
  );
}

/** Under the builder: how many problems, named (the JSON view lists them under its editor). */
function ProblemSummary(props: { checked: Checked; view: View }) {
  if (props.view !== 'builder') return null;
  const n = props.checked.lines.length;
  return (
    <div class="code-problems">
      <p role="status">
        {n === 0 ? 'No problems found.' : `${String(n)} ${n === 1 ? 'problem' : 'problems'}:`}
      </p>
      {n > 0 && (
        <ul>
          {props.checked.lines.map((p, k) => (
            <li key={k}>{p.message}</li>
          ))}
        </ul>
      )}
    </div>
  );
}
