// A feed of submissions, across forms or for one form, newest first, unread marked
// (docs/forms-web.md#the-inbox).
import { useState } from 'preact/hooks';
import { REFRESH_EVENT } from '../use-load.js';
import type { Api, FormSummary, SubmissionSummary } from '../api.js';
import { formatDate, previewText } from '../format.js';
import { href } from '../route.js';
import { Alert } from '../alert.js';
import { FormTools } from './form-tools.js';
import { FormTabs } from './spam.js';
import { useLoad } from '../use-load.js';

interface FeedData {
  forms: FormSummary[];
  items: SubmissionSummary[];
}

const PAGE = 50;

function merge(a: SubmissionSummary[], b: SubmissionSummary[]): SubmissionSummary[] {
  const byId = new Map([...a, ...b].map((s) => [s.id, s]));
  return [...byId.values()].sort((x, y) => y.receivedAt.localeCompare(x.receivedAt));
}

export function Feed(props: { api: Api; form?: string; onUnauthorized: () => void }) {
  const { api, form } = props;
  const { data, error } = useLoad<FeedData>(
    async () => {
      const [forms, items] = await Promise.all([api.forms(), api.feed(form, PAGE)]);
      return { forms, items };
    },
    [api, form],
    props.onUnauthorized,
  );
  // Older pages, fetched on request and kept across refreshes of the first page.
  const [older, setOlder] = useState<{ items: SubmissionSummary[]; more: boolean } | null>(null);
  const [olderError, setOlderError] = useState<string | null>(null);
  const items = data ? merge(data.items, older?.items ?? []) : [];
  const more = older ? older.more : (data?.items.length ?? 0) === PAGE;
  const showOlder = async () => {
    const last = items.at(-1);
    if (!last) return;
    setOlderError(null);
    try {
      const page = await api.feed(form, PAGE, last.id);
      setOlder({ items: merge(older?.items ?? [], page), more: page.length === PAGE });
    } catch (err) {
      setOlderError(err instanceof Error ? err.message : String(err));
    }
  };
  // A read flag changed here shows at once, before the feed reloads.
  const [flags, setFlags] = useState<ReadonlyMap<string, boolean>>(new Map());
  const [status, setStatus] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  const shown = items.map((s) => (flags.has(s.id) ? { ...s, read: flags.get(s.id) === true } : s));
  const names = new Map(data?.forms.map((f) => [f.id, f.name || f.id]));
  const title = form ? (names.get(form) ?? form) : 'All submissions';
  const unread = shown.filter((s) => !s.read).length;
  const toggle = async (s: SubmissionSummary) => {
    setActionError(null);
    try {
      await (s.read ? api.markUnread(s.form, s.id) : api.markRead(s.form, s.id));
      setFlags(new Map(flags).set(s.id, !s.read));
      setStatus(s.read ? 'Marked unread.' : 'Marked read.');
      dispatchEvent(new Event(REFRESH_EVENT)); // the unread badge and counts catch up
    } catch (err) {
      setActionError(err instanceof Error ? err.message : String(err));
    }
  };
  const markAll = async () => {
    setActionError(null);
    try {
      const marked = await api.markAllRead(form, shown[0]?.id);
      setFlags(new Map(shown.map((s) => [s.id, true])));
      setStatus(`Marked ${String(marked)} ${marked === 1 ? 'submission' : 'submissions'} read.`);
      dispatchEvent(new Event(REFRESH_EVENT));
    } catch (err) {
      setActionError(err instanceof Error ? err.message : String(err));
    }
  };
  return (
    <section aria-labelledby="feed-title">
      <div class="heading">
        <h1 id="feed-title">{title}</h1>
        {data && <span class="muted">{unread > 0 ? `${unread} unread` : 'All read'}</span>}
        {unread > 0 && (
          <button type="button" class="secondary small-button" onClick={() => void markAll()}>
            Mark all read
          </button>
        )}
      </div>
      <p role="status" class="status">
        {status}
      </p>
      <Alert message={actionError} />
      {form && <FormTabs form={form} current="feed" />}
      {form && <FormTools api={api} form={form} />}
      <Alert message={error} />
      {data === undefined && !error && <p class="muted">Loading…</p>}
      {data && items.length === 0 && <p class="muted">No submissions yet.</p>}
      {shown.length > 0 && (
        <ul class="feed">
          {shown.map((s) => (
            <li key={s.id} class={s.read ? 'read' : 'unread'}>
              <a href={href.submission(s.form, s.id)}>
                <span class="dot" aria-hidden="true" />
                <span class="feed-main">
                  <span class="feed-top">
                    <span class="feed-form">
                      {!form && (names.get(s.form) ?? s.form)}
                      {!s.read && <span class="tag">Unread</span>}
                      {s.spam && <span class="tag spam">Spam</span>}
                    </span>
                    <time dateTime={s.receivedAt}>{formatDate(s.receivedAt)}</time>
                  </span>
                  <span class="feed-preview">{previewText(s.preview) || 'No answers'}</span>
                </span>
              </a>
              <button
                type="button"
                class="link small row-action"
                aria-label={`${s.read ? 'Mark unread' : 'Mark read'}: ${previewText(s.preview) || formatDate(s.receivedAt)}`}
                onClick={() => void toggle(s)}
              >
                {s.read ? 'Mark unread' : 'Mark read'}
              </button>
            </li>
          ))}
        </ul>
      )}
      {more && (
        <p>
          <button type="button" class="secondary" onClick={() => void showOlder()}>
            Show older submissions
          </button>
        </p>
      )}
      <Alert message={olderError} />
    </section>
  );
}
