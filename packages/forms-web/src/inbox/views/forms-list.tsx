// The organisation's forms with their counts and unread numbers (docs/forms.md#forms-and-definitions:
// GET .../forms).
import type { Api, FormSummary } from '../api.js';
import { formatDate } from '../format.js';
import { href } from '../route.js';
import { useLoad } from '../use-load.js';
import { Alert } from '../alert.js';

export function FormsList(props: { api: Api; onUnauthorized: () => void }) {
  const { data, error } = useLoad(() => props.api.forms(), [props.api], props.onUnauthorized);
  return (
    <section aria-labelledby="forms-title">
      <div class="heading">
        <h1 id="forms-title">Forms</h1>
        <a href={href.newForm()} class="button-link">
          New form
        </a>
      </div>
      <Alert message={error} />
      {data === undefined && !error && <p class="muted">Loading…</p>}
      {data?.length === 0 && (
        <p class="muted">No forms yet. Create one with New form, then write its questions.</p>
      )}
      {data && data.length > 0 && (
        <ul class="cards">
          {data.map((f: FormSummary) => (
            <li key={f.id}>
              <a href={href.form(f.id)} class="card">
                <span class="card-title">{f.name || f.id}</span>
                <span class="muted">
                  {f.submissions} {f.submissions === 1 ? 'submission' : 'submissions'}
                  {f.lastSubmissionAt ? ` · last ${formatDate(f.lastSubmissionAt)}` : ''}
                </span>
                {f.unread > 0 && <span class="badge">{f.unread} unread</span>}
              </a>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
