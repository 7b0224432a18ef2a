// Creating a form: a name, an id made from it (editable), a description; then the definition
// editor opens.
import { useState } from 'preact/hooks';
import type { Api } from '../api.js';
import { href } from '../route.js';
import { Alert } from '../alert.js';
import { createForm, FORM_ID, idFromName } from './form-admin.js';
import { errorText } from './error-text.js';

export function NewForm(props: { api: Api }) {
  const [name, setName] = useState('');
  const [id, setId] = useState('');
  const [idEdited, setIdEdited] = useState(false);
  const [description, setDescription] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const effectiveId = idEdited ? id : idFromName(name);
  const idBad = effectiveId !== '' && !FORM_ID.test(effectiveId);

  const submit = async (e: Event) => {
    e.preventDefault();
    if (!name.trim() || !effectiveId || idBad) {
      setError(
        !name.trim() ? 'Give the form a name.' : 'Give the form an id of letters, digits, - and _.',
      );
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await createForm(props.api, effectiveId, { name: name.trim(), description });
      location.hash = href.settings(effectiveId, 'definition');
    } catch (err) {
      setError(errorText(err));
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="new-form-title" class="manage">
      <p>
        <a href={href.forms()}>← Forms</a>
      </p>
      <h1 id="new-form-title">New form</h1>
      <form class="stack" onSubmit={(e) => void submit(e)} noValidate>
        <label for="nf-name">Name</label>
        <input
          id="nf-name"
          value={name}
          required
          maxLength={200}
          onInput={(e) => {
            setName(e.currentTarget.value);
          }}
        />
        <label for="nf-id">Form id</label>
        <input
          id="nf-id"
          value={effectiveId}
          aria-describedby="nf-id-help"
          aria-invalid={idBad ? 'true' : undefined}
          autoCapitalize="off"
          spellcheck={false}
          onInput={(e) => {
            setIdEdited(true);
            setId(e.currentTarget.value);
          }}
        />
        <p id="nf-id-help" class="muted">
          Part of the form's URLs; it cannot be changed later. Letters, digits, - and _.
        </p>
        <label for="nf-description">Description (optional)</label>
        <textarea
          id="nf-description"
          rows={3}
          maxLength={5000}
          value={description}
          onInput={(e) => {
            setDescription(e.currentTarget.value);
          }}
        />
        <Alert message={error} />
        <p>
          <button type="submit" disabled={busy}>
            Create form
          </button>
        </p>
      </form>
    </section>
  );
}
