// The definition editor: JSON checked against the server's published JSON Schema as it is typed,
// each problem on its line; the real runtime previews the draft beside it; Save stores a new
// version, and an unchanged draft is not sent at all (the server would keep the version anyway).
import { useEffect, useMemo, useState } from 'preact/hooks';
import { Alert } from '../alert.js';
import { canonicalJson } from './canonical-json.js';
import { CodeEditor, type LineProblem } from './code-editor.js';
import { errorText } from './error-text.js';
import { saveDefinition } from './form-admin.js';
import type { TabProps } from './form-settings.js';
import { JsonSyntaxError, parseJson } from './json-lines.js';
import { Preview } from './preview.js';
import { checkSchema, checkUniqueness } from './schema-check.js';
import { Versions } from './versions.js';

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
  problems: LineProblem[];
  value: unknown;
}

function check(text: string, schema: Record<string, unknown> | null): Checked {
  try {
    const parsed = parseJson(text);
    const found = schema
      ? [...checkSchema(schema, parsed.value), ...checkUniqueness(parsed.value)]
      : [];
    // The same problem can be found twice (the schema requires some fields in two places).
    const byMessage = new Map<string, number>();
    for (const p of found) {
      const message = `${p.path.join('/') || 'the definition'} ${p.message}`;
      if (!byMessage.has(message)) byMessage.set(message, parsed.lineOf(p.path));
    }
    const problems = [...byMessage].map(([message, line]) => ({ line, message }));
    return { problems: problems.sort((a, b) => a.line - b.line), value: parsed.value };
  } catch (err) {
    if (err instanceof JsonSyntaxError) {
      return { problems: [{ line: err.line, message: err.message }], value: undefined };
    }
    throw err;
  }
}

export function DefinitionEditor({ api, info, reload }: TabProps) {
  const { form } = info;
  const stored = info.definition;
  const [text, setText] = useState(() =>
    JSON.stringify(stored ?? starter(form.name || form.id), null, 2),
  );
  const [schema, setSchema] = useState<Record<string, unknown> | null>(null);
  const [schemaError, setSchemaError] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    loadSchema().then(setSchema, (err: unknown) => {
      setSchemaError(errorText(err));
    });
  }, []);

  const checked = useMemo(() => check(text, schema), [text, schema]);
  const ok = checked.problems.length === 0 && schema !== null;
  const [shown, setShown] = useState<unknown>(() => (ok ? checked.value : (stored ?? null)));
  useEffect(() => {
    if (ok) setShown(checked.value);
  }, [ok, checked.value]);

  const unchanged =
    stored !== undefined && ok && canonicalJson(checked.value) === canonicalJson(stored);

  const save = async () => {
    setStatus(null);
    setError(null);
    if (!ok) {
      setError('Fix the problems listed under the editor first.');
      return;
    }
    if (unchanged) {
      setStatus(`No changes: the definition stays at version ${String(form.definitionVersion)}.`);
      return;
    }
    setBusy(true);
    try {
      const version = await saveDefinition(api, form.id, checked.value);
      setStatus(`Saved as version ${String(version)}.`);
      reload();
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <p class="muted">
        The format is described in the definition format guide; the editor checks the draft against
        the server's JSON Schema (<a href="/schema/definition.json">definition.json</a>) as you
        type.
      </p>
      <Alert message={schemaError} />
      <div class="editor-grid">
        <div>
          <CodeEditor
            id="definition-json"
            label="Definition (JSON)"
            value={text}
            problems={checked.problems}
            onInput={(v) => {
              setText(v);
              setStatus(null);
            }}
          />
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
