// Sign-in with an organisation slug and an organisation token (spec 2 §5 rule 3). The token is
// checked against the API before it is kept, so a typo is caught here with a clear message.
import { useState } from 'preact/hooks';
import { Api, ApiError } from '../api.js';
import type { Credentials } from '../session.js';

function explain(err: unknown, org: string): string {
  if (!(err instanceof ApiError)) return 'Sign-in failed. Try again.';
  if (err.status === 401) return 'That token is not valid. Check it and try again.';
  if (err.status === 403) return `That token does not belong to the organisation “${org}”.`;
  if (err.status === 404) return `There is no organisation “${org}”.`;
  return err.message;
}

export function SignIn(props: {
  notice: string | null;
  onSignedIn: (creds: Credentials, remember: boolean) => void;
}) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget as HTMLFormElement);
    const text = (name: string) => {
      const value = data.get(name);
      return typeof value === 'string' ? value.trim() : '';
    };
    const org = text('org');
    const token = text('token');
    if (!org || !token) {
      setError(!org ? 'Enter your organisation.' : 'Enter your organisation token.');
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await new Api(org, token).forms();
      props.onSignedIn({ org, token }, data.get('remember') === 'on');
    } catch (err) {
      setError(explain(err, org));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="signin">
      <h1>Havn inbox</h1>
      <p class="muted">Sign in with your organisation and an organisation token.</p>
      {props.notice && <p class="notice">{props.notice}</p>}
      <form onSubmit={(e) => void submit(e)} aria-describedby={error ? 'signin-error' : undefined}>
        <label for="org">Organisation</label>
        <input id="org" name="org" autocomplete="username" autocapitalize="none" required />
        <label for="token">Organisation token</label>
        <input id="token" name="token" type="password" autocomplete="current-password" required />
        <div class="check">
          <input id="remember" name="remember" type="checkbox" defaultChecked />
          <label for="remember">Keep me signed in on this device</label>
        </div>
        {error && (
          <p id="signin-error" class="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
