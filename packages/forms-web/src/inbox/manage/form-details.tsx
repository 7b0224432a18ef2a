// Rename and describe a form (written with the server's PATCH, so origins and webhooks stay as they are),
// and delete it once its name is typed.
import { useState } from 'preact/hooks';
import { href } from '../route.js';
import { Alert } from '../alert.js';
import { errorText } from './error-text.js';
import { deleteForm } from './form-admin.js';
import type { TabProps } from './form-settings.js';

export function FormDetails({ api, info, reload }: TabProps) {
  const { form } = info;
  const [name, setName] = useState(form.name);
  const [description, setDescription] = useState(form.description);
  const [status, setStatus] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const save = async (e: Event) => {
    e.preventDefault();
    setStatus(null);
    setError(null);
    if (!name.trim()) {
      setError('Give the form a name.');
      return;
    }
    try {
      await api.patchForm(form.id, { name: name.trim(), description });
      setStatus('Saved.');
      reload();
    } catch (err) {
      setError(errorText(err));
    }
  };

  return (
    <>
      <form class="stack" onSubmit={(e) => void save(e)} noValidate>
        <label for="fd-name">Name</label>
        <input
          id="fd-name"
          value={name}
          maxLength={200}
          onInput={(e) => {
            setName(e.currentTarget.value);
          }}
        />
        <label for="fd-description">Description</label>
        <textarea
          id="fd-description"
          rows={3}
          maxLength={5000}
          value={description}
          onInput={(e) => {
            setDescription(e.currentTarget.value);
          }}
        />
        <p class="muted">
          Form id <code>{form.id}</code> · definition{' '}
          {form.definitionVersion ? `version ${String(form.definitionVersion)}` : 'not set yet'}
        </p>
        <p>
          <button type="submit">Save details</button> <span role="status">{status}</span>
        </p>
        <Alert message={error} />
      </form>
      <DeleteForm api={api} info={info} reload={reload} />
    </>
  );
}

function DeleteForm({ api, info }: TabProps) {
  const { form } = info;
  const [typed, setTyped] = useState('');
  const [error, setError] = useState<string | null>(null);
  const expected = form.name || form.id;
  const del = async (e: Event) => {
    e.preventDefault();
    if (typed !== expected) return;
    try {
      await deleteForm(api, form.id);
      location.hash = href.forms();
    } catch (err) {
      setError(errorText(err));
    }
  };
  return (
    <form class="stack danger" onSubmit={(e) => void del(e)} aria-labelledby="delete-title">
      <h3 id="delete-title">Delete this form</h3>
      <p>
        This deletes the form, every submission and every delivery record, for good. Type{' '}
        <strong>{expected}</strong> to confirm.
      </p>
      <label for="fd-confirm">Form name</label>
      <input
        id="fd-confirm"
        value={typed}
        autoComplete="off"
        onInput={(e) => {
          setTyped(e.currentTarget.value);
        }}
      />
      <p>
        <button type="submit" class="danger" disabled={typed !== expected}>
          Delete form
        </button>
      </p>
      <Alert message={error} />
    </form>
  );
}
