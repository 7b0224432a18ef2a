// The form's webhooks: add (the secret is shown once, with how to check signatures), remove, and
// each webhook's deliveries for the form's recent submissions, with redeliver. Written through
// patchForm, so origins and the rest stay as they are.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Api, Delivery } from '../api.js';
import { formatDate } from '../format.js';
import { href } from '../route.js';
import { useLoad } from '../use-load.js';
import { CopyButton } from './copy-button.js';
import { errorText } from './error-text.js';
import { patchForm, webhookUrlProblem } from './form-admin.js';
import type { TabProps } from './form-settings.js';

export function Webhooks({ api, info, reload }: TabProps) {
  const { form } = info;
  const hooks = form.webhooks;
  const [value, setValue] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [created, setCreated] = useState<{ url: string; secret: string } | null>(null);

  const add = async (e: Event) => {
    e.preventDefault();
    setProblem(null);
    setStatus(null);
    const url = value.trim();
    const bad = webhookUrlProblem(url);
    if (bad) {
      setProblem(bad);
      return;
    }
    try {
      // No secret sent: the server makes a Standard Webhooks one (whsec_…) and answers with it.
      const saved = await patchForm(api, form.id, { webhooks: [...hooks, { url }] });
      const made = saved.webhooks.filter((h) => h.url === url).at(-1);
      if (made) setCreated(made);
      setValue('');
      reload();
    } catch (err) {
      setProblem(errorText(err));
    }
  };
  const remove = async (index: number) => {
    setProblem(null);
    try {
      const url = hooks[index]?.url ?? '';
      await patchForm(api, form.id, { webhooks: hooks.filter((_, n) => n !== index) });
      setStatus(`Removed ${url}.`);
      reload();
    } catch (err) {
      setProblem(errorText(err));
    }
  };

  return (
    <>
      <p>
        Each submission is sent as a signed <code>POST</code> to every webhook, retried for about a
        day until the receiver answers 2xx.
      </p>
      {created && (
        <NewSecret
          hook={created}
          onDone={() => {
            setCreated(null);
          }}
        />
      )}
      {hooks.length === 0 && <p class="muted">No webhooks yet.</p>}
      {hooks.map((h, n) => (
        <section key={`${String(n)}-${h.url}`} class="hook" aria-label={`Webhook ${h.url}`}>
          <div class="row">
            <code class="grow wrap">{h.url}</code>
            <button
              type="button"
              class="secondary"
              aria-label={`Remove webhook ${h.url}`}
              onClick={() => void remove(n)}
            >
              Remove
            </button>
          </div>
          <DeliveryLog api={api} form={form.id} url={h.url} />
        </section>
      ))}
      <form class="row" onSubmit={(e) => void add(e)} noValidate>
        <span class="field-inline grow">
          <label for="hook-new">Webhook URL</label>
          <input
            id="hook-new"
            type="url"
            value={value}
            placeholder="https://example.com/hooks/havn"
            autoCapitalize="off"
            spellcheck={false}
            aria-invalid={problem ? 'true' : undefined}
            onInput={(e) => {
              setValue(e.currentTarget.value);
            }}
          />
        </span>
        <button type="submit">Add webhook</button>
      </form>
      {problem && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
      <p role="status">{status}</p>
    </>
  );
}

const VERIFY = (secret: string) => `import { Webhook } from 'standardwebhooks';
const wh = new Webhook('${secret}');
// raw body as received, and the webhook-id, webhook-timestamp, webhook-signature headers:
const event = wh.verify(rawBody, headers); // throws when the signature is wrong`;

function NewSecret(props: { hook: { url: string; secret: string }; onDone: () => void }) {
  // Focus moves to the secret, so nobody (with a screen reader or not) misses the one showing.
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    box.current?.focus();
  }, []);
  return (
    <div ref={box} class="secret" role="region" aria-labelledby="secret-title" tabIndex={-1}>
      <h3 id="secret-title">Signing secret of {props.hook.url}</h3>
      <p>
        <strong>Copy it now: it is not shown again.</strong> Your receiver uses it to check that a
        request really comes from Havn.
      </p>
      <pre tabIndex={0}>
        <code>{props.hook.secret}</code>
      </pre>
      <CopyButton text={props.hook.secret} label="Copy secret" />
      <p>
        Requests carry the <a href="https://www.standardwebhooks.com/">Standard Webhooks</a> headers{' '}
        <code>webhook-id</code>, <code>webhook-timestamp</code> and <code>webhook-signature</code> (
        <code>v1,</code> and the base64 HMAC-SHA256 of <code>id.timestamp.body</code>, keyed with
        the base64 after <code>whsec_</code>). In Node:
      </p>
      <pre tabIndex={0}>
        <code>{VERIFY(props.hook.secret)}</code>
      </pre>
      <button type="button" onClick={props.onDone}>
        I have saved the secret
      </button>
    </div>
  );
}

/** "2 attempts · HTTP 500 · next try …", or "1 attempt · HTTP 204 · delivered …". */
function details(d: Delivery): string {
  const parts = [`${String(d.attempts)} ${d.attempts === 1 ? 'attempt' : 'attempts'}`];
  if (d.lastStatus !== null) parts.push(`HTTP ${String(d.lastStatus)}`);
  if (d.lastError) parts.push(d.lastError);
  if (d.deliveredAt) parts.push(`delivered ${formatDate(d.deliveredAt)}`);
  else if (d.nextAttemptAt) parts.push(`next try ${formatDate(d.nextAttemptAt)}`);
  return parts.join(' · ');
}

interface LogRow {
  submission: string;
  receivedAt: string;
  delivery: Delivery;
}

/** The webhook's deliveries for the form's 20 latest submissions (one request per submission). */
function DeliveryLog(props: { api: Api; form: string; url: string }) {
  const { api, form, url } = props;
  const [note, setNote] = useState<string | null>(null);
  const { data, error, reload } = useLoad(
    async () => {
      const recent = await api.feed(form, 20);
      const records = await Promise.all(recent.map((s) => api.submission(form, s.id)));
      return records.flatMap((r) =>
        (r.deliveries ?? [])
          .filter((d) => d.kind !== 'push' && d.target === url)
          .map((d) => ({ submission: r.id, receivedAt: r.receivedAt, delivery: d })),
      );
    },
    [api, form, url],
    () => undefined, // the settings page above signs out on a 401
  );
  const redeliver = async (id: string) => {
    setNote(null);
    try {
      await api.redeliver(form, id);
      setNote('Redelivery queued.');
      setTimeout(reload, 1500);
    } catch (err) {
      setNote(errorText(err));
    }
  };
  const rows: LogRow[] = data ?? [];
  return (
    <div class="delivery-log">
      <div class="row">
        <h3 class="grow">Deliveries</h3>
        <button type="button" class="secondary" onClick={reload}>
          Refresh
        </button>
      </div>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {data && rows.length === 0 && (
        <p class="muted">No deliveries yet: they appear here once a submission arrives.</p>
      )}
      {rows.length > 0 && (
        <div class="table-wrap" tabIndex={0} role="region" aria-label={`Deliveries to ${url}`}>
          <table>
            <thead>
              <tr>
                <th scope="col">Submission</th>
                <th scope="col">Status</th>
                <th scope="col">Details</th>
                <th scope="col">
                  <span class="sr">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.delivery.id}>
                  <td>
                    <a href={href.submission(form, r.submission)}>{formatDate(r.receivedAt)}</a>
                  </td>
                  <td>{r.delivery.status}</td>
                  <td class="wrap">{details(r.delivery)}</td>
                  <td>
                    <button
                      type="button"
                      class="secondary"
                      onClick={() => void redeliver(r.submission)}
                    >
                      Redeliver
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <p role="status">{note}</p>
    </div>
  );
}
