// A feed of submissions, across forms or for one form, newest first, unread marked
// (docs/forms-web.md#the-inbox).
import { useState } from 'preact/hooks';
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
  const names = new Map(data?.forms.map((f) => [f.id, f.name || f.id]));
  const title = form ? (names.get(form) ?? form) : 'All submissions';
  const unread = items.filter((s) => !s.read).length;
  return (
    <section aria-labelledby="feed-title">
      <div class="heading">
        <h1 id="feed-title">{title}</h1>
        {data && <span class="muted">{unread > 0 ? `${unread} unread` : 'All read'}</span>}
      </div>
      {form && <FormTabs form={form} current="feed" />}
      {form && <FormTools api={api} form={form} />}
      <Alert message={error} />
      {data === undefined && !error && <p class="muted">Loading…</p>}
      {data && items.length === 0 && <p class="muted">No submissions yet.</p>}
      {items.length > 0 && (
        <ul class="feed">
          {items.map((s) => (
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
