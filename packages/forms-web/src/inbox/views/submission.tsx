// One submission: answers under the labels of the definition version it was submitted against
// (so old answers stay readable after the form changes), metadata, webhook deliveries with a
// redeliver button. Opening it marks it read (docs/forms.md#submissions: `read` is for people).
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Api, Definition, Delivery, Submission } from '../api.js';
import { answerRows, formatDate } from '../format.js';
import { href } from '../route.js';
import { REFRESH_EVENT, useLoad } from '../use-load.js';
import { Alert } from '../alert.js';

interface Data {
  record: Submission;
  definition: Definition | null;
}

export function SubmissionView(props: {
  api: Api;
  form: string;
  id: string;
  onUnauthorized: () => void;
}) {
  const { api, form, id } = props;
  const { data, error, reload } = useLoad<Data>(
    async () => {
      const record = await api.submission(form, id);
      const definition = await api.definition(form, record.definitionVersion);
      return { record, definition };
    },
    [api, form, id],
    props.onUnauthorized,
  );
  const [readError, setReadError] = useState<string | null>(null);
  const record = data?.record;
  useEffect(() => {
    if (!record || record.read) return;
    api.markRead(form, id).then(
      () => {
        record.read = true;
        // Counts elsewhere on screen (the unread badge) catch up.
        dispatchEvent(new Event(REFRESH_EVENT));
      },
      (err: unknown) => {
        setReadError(`Could not mark as read: ${err instanceof Error ? err.message : ''}`);
      },
    );
  }, [record, api, form, id]);

  return (
    <article aria-labelledby="sub-title">
      <p>
        <a href={href.form(form)}>← Back to {data?.definition?.intro?.title ?? form}</a>
      </p>
      <h1 id="sub-title">Submission</h1>
      <Alert message={error} />
      <Alert message={readError} />
      {!data && !error && <p class="muted">Loading…</p>}
      {data?.record.spam && <NotSpam api={api} record={data.record} onDone={reload} />}
      {data && <Details data={data} />}
      {data && <Deliveries api={api} record={data.record} onDone={reload} />}
      {data && <Manage api={api} record={data.record} />}
    </article>
  );
}

function Details({ data }: { data: Data }) {
  const { record, definition } = data;
  const rows = answerRows(definition, record.answers);
  // The honeypot is noise when empty; when filled the submission is flagged as spam above.
  const submitFields = Object.entries(record.submitFields ?? {}).filter(
    ([k, v]) => k !== '_gotcha' || (v !== '' && v != null),
  );
  return (
    <>
      <p class="muted">
        Received <time dateTime={record.receivedAt}>{formatDate(record.receivedAt)}</time>
        {record.spam ? ' · flagged as spam' : ''}
      </p>
      <h2>Answers</h2>
      <dl class="answers">
        {rows.map((r) => (
          <div key={r.name}>
            <dt>
              {r.label}
              {r.unknown && <span class="muted"> (not in this form version)</span>}
            </dt>
            <dd>
              {r.files
                ? r.files.map((f) => (
                    <div key={f.url}>
                      <a href={f.url} download={f.name}>
                        {f.name}
                      </a>{' '}
                      <span class="muted">({Math.max(1, Math.round(f.size / 1024))} KB)</span>
                    </div>
                  ))
                : r.value}
            </dd>
          </div>
        ))}
      </dl>
      <h2>Details</h2>
      <dl class="meta">
        <Meta label="Submission ID" value={record.id} />
        <Meta label="Form" value={record.form} />
        <Meta label="Form version" value={record.definitionVersion} />
        <Meta label="Origin" value={record.origin} />
        <Meta label="Referer" value={record.referer} />
        <Meta label="IP address" value={record.ip} />
        <Meta label="User agent" value={record.userAgent} />
        {submitFields.map(([k, v]) => (
          <Meta
            key={k}
            label={`Submit field ${k}`}
            value={typeof v === 'string' ? v : JSON.stringify(v)}
          />
        ))}
      </dl>
    </>
  );
}

/** docs/forms-web.md#spam: a spam submission can be taken out of the spam from its page too. */
function NotSpam(props: { api: Api; record: Submission; onDone: () => void }) {
  const [message, setMessage] = useState<string | null>(null);
  const move = async () => {
    try {
      await props.api.notSpam(props.record.form, props.record.id);
      dispatchEvent(new Event(REFRESH_EVENT));
      props.onDone();
    } catch (err) {
      setMessage(`Could not move it: ${err instanceof Error ? err.message : String(err)}`);
    }
  };
  return (
    <div class="warning">
      <p>This submission is in the spam: it was stored but sent nowhere.</p>
      <button type="button" class="secondary" onClick={() => void move()}>
        Not spam
      </button>
      <Alert message={message} />
    </div>
  );
}

/**
 * Mark unread (back to the feed: this page marks read on opening) and delete, which asks first:
 * an erased submission cannot come back (docs/forms.md#submissions).
 */
function Manage(props: { api: Api; record: Submission }) {
  const { api, record } = props;
  const [confirming, setConfirming] = useState(false);
  // The question takes the focus once, when it opens: not again at each reload of the page.
  const confirm = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (confirming) confirm.current?.focus();
  }, [confirming]);
  const [error, setError] = useState<string | null>(null);
  const done = () => {
    dispatchEvent(new Event(REFRESH_EVENT));
    location.hash = href.form(record.form);
  };
  const act = async (action: () => Promise<void>) => {
    setError(null);
    try {
      await action();
      done();
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  };
  return (
    <section class="danger-zone" aria-labelledby="manage-title">
      <h2 id="manage-title">This submission</h2>
      <p class="row">
        <button
          type="button"
          class="secondary"
          onClick={() => void act(() => api.markUnread(record.form, record.id))}
        >
          Mark unread
        </button>
        {!confirming && (
          <button
            type="button"
            class="secondary danger"
            onClick={() => {
              setConfirming(true);
            }}
          >
            Delete…
          </button>
        )}
      </p>
      {confirming && (
        <div class="warning" role="group" aria-labelledby="delete-question">
          <p id="delete-question">
            Delete this submission for good? Its answers, raw body and delivery records are erased,
            and pending webhooks of it are not sent. Webhook receivers keep what they were sent.
          </p>
          <p class="row">
            <button
              type="button"
              class="danger"
              ref={confirm}
              onClick={() => void act(() => api.erase(record.form, record.id))}
            >
              Delete for good
            </button>
            <button
              type="button"
              class="secondary"
              onClick={() => {
                setConfirming(false);
              }}
            >
              Cancel
            </button>
          </p>
        </div>
      )}
      <Alert message={error} />
    </section>
  );
}

function Meta(props: { label: string; value: string | number | null | undefined }) {
  return (
    <div>
      <dt>{props.label}</dt>
      <dd>
        {props.value === null || props.value === undefined || props.value === ''
          ? '—'
          : props.value}
      </dd>
    </div>
  );
}

function Deliveries(props: { api: Api; record: Submission; onDone: () => void }) {
  const { api, record } = props;
  const [state, setState] = useState<{ busy: boolean; message: string | null }>({
    busy: false,
    message: null,
  });
  // Push deliveries go to browsers and email notices to people; the page lists the webhooks.
  const deliveries: Delivery[] = record.deliveries.filter((d) => d.kind === 'webhook');
  const redeliver = async () => {
    setState({ busy: true, message: null });
    try {
      await api.redeliver(record.form, record.id);
      setState({ busy: false, message: 'Redelivery queued.' });
      props.onDone();
    } catch (err) {
      setState({
        busy: false,
        message: `Redelivery failed: ${err instanceof Error ? err.message : String(err)}`,
      });
    }
  };
  return (
    <section aria-labelledby="deliveries-title">
      <h2 id="deliveries-title">Webhook deliveries</h2>
      {deliveries.length === 0 ? (
        <p class="muted">No webhook deliveries for this submission.</p>
      ) : (
        // Scrolls sideways on a phone; focusable so keyboard users can scroll it too.
        <div class="table-wrap" tabIndex={0} role="region" aria-labelledby="deliveries-title">
          <table>
            <thead>
              <tr>
                <th scope="col">Webhook</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col">Delivered / next try</th>
                <th scope="col">Last result</th>
              </tr>
            </thead>
            <tbody>
              {deliveries.map((d) => (
                <tr key={d.id}>
                  <td class="wrap">{d.target}</td>
                  <td>{d.status}</td>
                  <td>{d.attempts}</td>
                  <td>{formatDate(d.deliveredAt ?? d.nextAttemptAt)}</td>
                  <td class="wrap">
                    {d.lastError ?? (d.lastStatus != null ? `HTTP ${d.lastStatus}` : '—')}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <button
        type="button"
        class="secondary"
        disabled={state.busy}
        onClick={() => void redeliver()}
      >
        {state.busy ? 'Redelivering…' : 'Redeliver webhooks'}
      </button>
      {state.message && <p role="status">{state.message}</p>}
    </section>
  );
}
