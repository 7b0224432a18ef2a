// The inbox shell: sign-in, then a header (organisation, navigation, notifications, sign out)
// above the current hash route.
import { useEffect, useMemo, useState } from 'preact/hooks';
import { Api } from './api.js';
import { LazyManage } from './lazy-manage.js';
import { href, useRoute } from './route.js';
import { clearSession, type Credentials, loadSession, saveSession } from './session.js';
import { Feed } from './views/feed.js';
import { FormsList } from './views/forms-list.js';
import { PushSwitch } from './views/push-switch.js';
import { SetupPage } from './views/setup.js';
import { SignIn } from './views/sign-in.js';
import { SpamFeed } from './views/spam.js';
import { SubmissionView } from './views/submission.js';
import { UnreadBadge } from './views/unread-badge.js';

export function App() {
  const [creds, setCreds] = useState<Credentials | null>(loadSession);
  const [notice, setNotice] = useState<string | null>(null);
  const route = useRoute();
  // A problem of the notifications switch, under the header until dismissed or the page changes.
  const [pushProblem, setPushProblem] = useState<string | null>(null);
  useEffect(() => {
    setPushProblem(null);
  }, [route]);
  const api = useMemo(() => (creds ? new Api(creds.org, creds.token) : null), [creds]);

  const onSignedIn = (c: Credentials, remember: boolean) => {
    saveSession(c, remember);
    setNotice(null);
    setCreds(c);
  };
  // A setup link opens its page whether or not someone is signed in on this device.
  if (route.name === 'setup') return <SetupPage code={route.code} onSignedIn={onSignedIn} />;
  if (!api || !creds) return <SignIn notice={notice} onSignedIn={onSignedIn} />;
  const signOut = (why: string | null) => {
    clearSession();
    setNotice(why);
    setCreds(null);
  };
  const onUnauthorized = () => {
    signOut('Your token is no longer valid. Sign in again.');
  };
  const current = (name: string) => (route.name === name ? 'page' : undefined);

  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">
          Havn inbox <span class="org">{creds.org}</span>
        </span>
        <nav aria-label="Main">
          <a href={href.feed()} aria-current={current('feed')}>
            All submissions
            <UnreadBadge api={api} />
          </a>
          <a href={href.forms()} aria-current={current('forms')}>
            Forms
          </a>
          <a href={href.tokens()} aria-current={current('tokens')}>
            Tokens
          </a>
        </nav>
        <PushSwitch api={api} onProblem={setPushProblem} />
        <button
          type="button"
          class="secondary"
          onClick={() => {
            signOut(null);
          }}
        >
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        {pushProblem && (
          <div class="banner">
            <p class="error" role="alert">
              {pushProblem}
            </p>
            <button
              type="button"
              class="secondary small-button"
              onClick={() => {
                setPushProblem(null);
              }}
            >
              Dismiss
            </button>
          </div>
        )}
        {route.name === 'feed' && <Feed api={api} onUnauthorized={onUnauthorized} />}
        {route.name === 'forms' && <FormsList api={api} onUnauthorized={onUnauthorized} />}
        {route.name === 'form' && (
          <Feed key={route.form} api={api} form={route.form} onUnauthorized={onUnauthorized} />
        )}
        {route.name === 'spam' && (
          <SpamFeed key={route.form} api={api} form={route.form} onUnauthorized={onUnauthorized} />
        )}
        {route.name === 'submission' && (
          <SubmissionView
            key={`${route.form}/${route.id}`}
            api={api}
            form={route.form}
            id={route.id}
            onUnauthorized={onUnauthorized}
          />
        )}
        {(route.name === 'new-form' || route.name === 'settings' || route.name === 'tokens') && (
          <LazyManage api={api} route={route} onUnauthorized={onUnauthorized} />
        )}
      </main>
    </>
  );
}
