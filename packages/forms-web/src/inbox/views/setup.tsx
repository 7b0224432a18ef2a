// The page a setup link opens (docs/forms-web.md#first-run): it creates an organisation with the
// link's one-time code and signs in with the organisation token the server mints for it. The code
// travels in the URL's fragment, which browsers never send to a server, so no access log holds it.
import { useState } from 'preact/hooks';
import type { SetupDoneAnswer } from '@havn/forms/wire';
import { Alert } from '../alert.js';
import { CopyButton } from '../manage/copy-button.js';
import { href } from '../route.js';
import type { Credentials } from '../session.js';
import { idFromName } from '../slug.js';

const SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/;

function explain(status: number, body: { error?: string }, slug: string): string {
  if (status === 404) {
    return (
      'This setup link no longer works: it was used, it expired (links last an hour), or this ' +
      'server has an organisation already. Sign in with an organisation token instead, or ask ' +
      'whoever runs the server for a new setup link.'
    );
  }
  if (status === 403) return 'This setup link is not valid. Check that you copied all of it.';
  if (status === 409) return `The short name “${slug}” is taken. Choose another.`;
  if (status === 429)
    return 'Too many attempts from this network. Wait ten minutes, then try again.';
  return body.error ?? `The server answered ${String(status)}.`;
}

export function SetupPage(props: {
  code: string;
  onSignedIn: (creds: Credentials, remember: boolean) => void;
}) {
  const [name, setName] = useState('');
  const [slug, setSlug] = useState('');
  const [slugEdited, setSlugEdited] = useState(false);
  const [remember, setRemember] = useState(true);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState<Credentials | null>(null);
  const effectiveSlug = slugEdited ? slug : idFromName(name, 63);

  const submit = async (event: Event) => {
    event.preventDefault();
    if (!name.trim()) {
      setError('Give your organisation a name.');
      return;
    }
    if (!SLUG.test(effectiveSlug)) {
      setError(
        'Use lower-case letters, digits and dashes for the short name, starting with a letter or digit.',
      );
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const res = await fetch('/api/setup', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ code: props.code, slug: effectiveSlug, name: name.trim() }),
      });
      const body = (await res.json().catch(() => ({}))) as Partial<SetupDoneAnswer> & {
        error?: string;
      };
      if (res.status !== 201 || !body.org || !body.token) {
        setError(explain(res.status, body, effectiveSlug));
        return;
      }
      setDone({ org: body.org.slug, token: body.token });
    } catch {
      setError('The server cannot be reached. Check your connection and try again.');
    } finally {
      setBusy(false);
    }
  };

  if (done) {
    return (
      <main class="signin">
        <h1>Your organisation is ready</h1>
        <p>
          You are signed in to the inbox of <strong>{done.org}</strong> with a new organisation
          token. This is the only time it is shown: keep it somewhere safe, such as a password
          manager, to sign in on another device. More can be made under <strong>Tokens</strong>.
        </p>
        <label for="setup-token">Your organisation token</label>
        <input
          id="setup-token"
          readOnly
          value={done.token}
          onFocus={(e) => {
            e.currentTarget.select();
          }}
        />
        <p class="row">
          <button
            type="button"
            onClick={() => {
              props.onSignedIn(done, remember);
              location.hash = href.forms();
            }}
          >
            Open the inbox
          </button>
          <CopyButton text={done.token} label="Copy token" />
        </p>
      </main>
    );
  }

  return (
    <main class="signin">
      <h1>Create your organisation</h1>
      <p class="muted">
        This setup link creates an organisation on this Havn server and signs you in to its inbox.
        It works once, within an hour of being made.
      </p>
      <form onSubmit={(e) => void submit(e)} noValidate>
        <label for="setup-name">Organisation name</label>
        <input
          id="setup-name"
          value={name}
          autocomplete="organization"
          required
          onInput={(e) => {
            setName(e.currentTarget.value);
          }}
        />
        <label for="setup-slug">Short name</label>
        <input
          id="setup-slug"
          value={effectiveSlug}
          autocapitalize="none"
          spellcheck={false}
          aria-describedby="setup-slug-help"
          required
          onInput={(e) => {
            setSlug(e.currentTarget.value);
            setSlugEdited(true);
          }}
        />
        <p id="setup-slug-help" class="muted small field-help">
          Lower-case letters, digits and dashes. You sign in with it, and it is part of your forms'
          addresses, so it cannot change later.
        </p>
        <div class="check">
          <input
            id="setup-remember"
            type="checkbox"
            checked={remember}
            onChange={(e) => {
              setRemember(e.currentTarget.checked);
            }}
          />
          <label for="setup-remember">Keep me signed in on this device</label>
        </div>
        <Alert message={error} />
        <button type="submit" disabled={busy}>
          {busy ? 'Creating…' : 'Create organisation'}
        </button>
      </form>
    </main>
  );
}
