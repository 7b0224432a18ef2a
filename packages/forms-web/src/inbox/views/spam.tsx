// A form's spam (docs/forms-web.md#spam): what the honeypot or the proof of work kept out of the
// feed, newest first, each with "Not spam", which stores it as a normal submission and sends it
// to the form's webhooks, email recipients and push subscriptions as if it had just arrived.
import { useState } from 'preact/hooks';
import { ApiError, type Api, type SubmissionSummary } from '../api.js';
import { formatDate, previewText } from '../format.js';
import { href } from '../route.js';
import { REFRESH_EVENT, useLoad } from '../use-load.js';

/** The two views of one form: its submissions and its spam. */
export function FormTabs(props: { form: string; current: 'feed' | 'spam' }) {
  const { form, current } = props;
  return (
    <nav aria-label="Form views" class="tabs">
      <a href={href.form(form)} aria-current={current === 'feed' ? 'page' : undefined}>
        Submissions
      </a>
      <a href={href.spam(form)} aria-current={current === 'spam' ? 'page' : undefined}>
        Spam
      </a>
    </nav>
  );
}

const PAGE = 50;

type Mode = 'honeypot' | 'pow';

/** The form's spamProtection (docs/forms.md#spam), chosen with two radios and Save. */
function Protection(props: { api: Api; form: string; onUnauthorized: () => void }) {
  const { api, form } = props;
  const { data } = useLoad(() => api.formInfo(form), [api, form], props.onUnauthorized);
  const [choice, setChoice] = useState<Mode | null>(null);
  const [message, setMessage] = useState('');
  const stored = data?.form.spamProtection ?? 'honeypot';
  const current = choice ?? stored;
  const save = async (event: Event) => {
    event.preventDefault();
    try {
      await api.patchForm(form, { spamProtection: current });
      setMessage(current === 'pow' ? 'Saved: proof of work is on.' : 'Saved: honeypot only.');
    } catch (err) {
      setMessage(`Could not save: ${err instanceof Error ? err.message : String(err)}`);
    }
  };
  if (!data) return null;
  const option = (value: Mode, label: string, help: string) => (
    <label class="choice">
      <input
        type="radio"
        name="spam-protection"
        value={value}
        checked={current === value}
        onChange={() => {
          setChoice(value);
          setMessage('');
        }}
      />
      <span>
        {label}
        <span class="muted"> {help}</span>
      </span>
    </label>
  );
  return (
    <form class="protection" onSubmit={(e) => void save(e)}>
      <fieldset>
        <legend>Spam protection</legend>
        {option('honeypot', 'Honeypot only.', 'Works everywhere, also without JavaScript.')}
        {option(
          'pow',
          'Honeypot and proof of work.',
          'The embedded form solves a small puzzle while people type; posts without it, such as plain HTML forms, land here.',
        )}
      </fieldset>
      <button type="submit" class="secondary" disabled={current === stored && choice === null}>
        Save
      </button>
      <span role="status"> {message}</span>
    </form>
  );
}

export function SpamFeed(props: { api: Api; form: string; onUnauthorized: () => void }) {
  const { api, form } = props;
  const { data, error } = useLoad<SubmissionSummary[]>(
    () => api.spam(form, PAGE),
    [api, form],
    props.onUnauthorized,
  );
  // Moved out of the spam on this page: hidden at once, whatever a refresh brings meanwhile.
  const [moved, setMoved] = useState<ReadonlySet<string>>(new Set());
  const [status, setStatus] = useState('');
  const [failure, setFailure] = useState<string | null>(null);
  // Older pages, fetched on request (the newest page alone is what a refresh reloads).
  const [older, setOlder] = useState<{ items: SubmissionSummary[]; more: boolean } | null>(null);
  const byId = new Map([...(data ?? []), ...(older?.items ?? [])].map((s) => [s.id, s]));
  const items = [...byId.values()]
    .filter((s) => !moved.has(s.id))
    .sort((a, b) => b.id.localeCompare(a.id));
  const more = older ? older.more : (data?.length ?? 0) === PAGE;
  const showOlder = async () => {
    const last = [...byId.keys()].sort().at(0);
    if (last === undefined) return;
    try {
      const page = await api.spam(form, PAGE, last);
      setOlder({ items: [...(older?.items ?? []), ...page], more: page.length === PAGE });
    } catch (err) {
      setFailure(err instanceof Error ? err.message : String(err));
    }
  };

  const notSpam = async (s: SubmissionSummary, index: number) => {
    setFailure(null);
    try {
      const queued = await api.notSpam(form, s.id);
      setMoved(new Set([...moved, s.id]));
      setStatus(
        `Moved to the submissions${queued > 0 ? ` and sent on (${queued} ${queued === 1 ? 'delivery' : 'deliveries'})` : ''}.`,
      );
      dispatchEvent(new Event(REFRESH_EVENT));
      // Keep the keyboard where it was: on the next item's button, else the previous one's.
      requestAnimationFrame(() => {
        const buttons = document.querySelectorAll<HTMLButtonElement>('.spam-list button');
        (buttons[index] ?? buttons[index - 1] ?? document.getElementById('spam-title'))?.focus();
      });
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) props.onUnauthorized();
      else setFailure(`Could not move it: ${err instanceof Error ? err.message : String(err)}`);
    }
  };

  return (
    <section aria-labelledby="spam-title">
      <div class="heading">
        <h1 id="spam-title" tabIndex={-1}>
          Spam
        </h1>
        {data && (
          <span class="muted">{items.length === 1 ? '1 held' : `${items.length} held`}</span>
        )}
      </div>
      <FormTabs form={form} current="spam" />
      <p class="muted">
        Submissions the honeypot or the proof of work caught. They were stored but sent nowhere.
      </p>
      <Protection api={api} form={form} onUnauthorized={props.onUnauthorized} />
      <p role="status" class="status">
        {status}
      </p>
      {(error ?? failure) && (
        <p class="error" role="alert">
          {error ?? failure}
        </p>
      )}
      {data === undefined && !error && <p class="muted">Loading…</p>}
      {data && items.length === 0 && <p class="muted">No spam.</p>}
      {items.length > 0 && (
        <ul class="feed spam-list">
          {items.map((s, i) => (
            <li key={s.id}>
              <a href={href.submission(s.form, s.id)}>
                <span class="feed-main">
                  <span class="feed-top">
                    <span class="feed-preview">{previewText(s.preview) || 'No answers'}</span>
                    <time dateTime={s.receivedAt}>{formatDate(s.receivedAt)}</time>
                  </span>
                </span>
              </a>
              <button
                type="button"
                class="secondary"
                aria-label={`Not spam: ${previewText(s.preview) || 'no answers'}`}
                onClick={() => void notSpam(s, i)}
              >
                Not spam
              </button>
            </li>
          ))}
        </ul>
      )}
      {more && (
        <p>
          <button type="button" class="secondary" onClick={() => void showOlder()}>
            Show older spam
          </button>
        </p>
      )}
    </section>
  );
}
