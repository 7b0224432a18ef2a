// Sign-in with an organisation slug and an organisation token (docs/forms-web.md#the-inbox). The
// token is checked against the API before it is kept, so a typo is caught here with a clear
// message, and the admin token is refused before anything is stored: it never goes into a browser.
import { useState } from 'preact/hooks';
import { Api, ApiError } from '../api.js';
import type { Credentials } from '../session.js';

/** What the sign-in says to the admin token (docs/forms-web.md#the-inbox). */
export const ADMIN_TOKEN_REFUSED =
  'This is the admin token; it never goes into a browser. Sign in with an organisation token: ' +
  'open a setup link (the server prints one at its first start; POST /api/setup-links with the ' +
  'admin token makes another) or mint one with POST /api/orgs/<org>/tokens.';

/**
 * Whether `token` is the server's admin token, as the server tells it
 * (docs/forms.md#authentication): another organisation refuses an organisation token with 403
 * whether it exists or not, and a bad token with 401, and lets the admin token in (200 or 404).
 * A server with no admin token (open mode) lets everyone in, with or without a token, so a
 * request with no token at all tells that case apart (401 only when an admin token is set).
 */
async function isAdminToken(org: string, token: string): Promise<boolean> {
  const probe = 'havn-inbox-probe';
  const other = `/api/orgs/${org === probe ? `${probe}-2` : probe}`;
  const withToken = await fetch(other, { headers: { authorization: `Bearer ${token}` } });
  // 401: no valid token at all; 403: an organisation token. Only the admin token gets further.
  if (withToken.status !== 200 && withToken.status !== 404) return false;
  const withoutToken = await fetch(other);
  return withoutToken.status === 401;
}

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
      // First, whatever organisation was typed: the admin token is refused as itself.
      if (await isAdminToken(org, token)) {
        setError(ADMIN_TOKEN_REFUSED);
        return;
      }
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
      <TokenHelp />
    </main>
  );
}

/** docs/forms-web.md#signing-in: what an organisation token is and where one comes from. */
function TokenHelp() {
  const admin = `curl -X POST -H "Authorization: Bearer $ADMIN_TOKEN" ${location.origin}/api/setup-links`;
  return (
    <details class="help">
      <summary>What is an organisation token?</summary>
      <p>
        The key to one organisation's inbox: a long secret that starts with <code>havn_</code>. You
        get one:
      </p>
      <ul>
        <li>when you create your organisation with a setup link (the page shows it once);</li>
        <li>from someone already signed in, under Tokens;</li>
        <li>from whoever runs this server.</li>
      </ul>
      <p>
        Running the server yourself? While it has no organisation, <code>npm start</code> prints a
        setup link: open it to create yours. The admin token it prints is for scripts and never goes
        into a browser; with it, make a setup link for another organisation:
      </p>
      <pre>
        <code>{admin}</code>
      </pre>
    </details>
  );
}
