// The form's webhooks: add (the secret is shown once, with how to check signatures), remove, and
// each webhook's delivery log with Send test and Redeliver (delivery-log.tsx). Written with the
// server's PATCH of `webhooks`, so origins and the rest stay as they are.
import { useEffect, useRef, useState } from 'preact/hooks';
import { Alert } from '../alert.js';
import { CopyButton } from './copy-button.js';
import { DeliveryLog } from './delivery-log.js';
import { errorText } from './error-text.js';
import { webhookUrlProblem } from './form-admin.js';
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
      const saved = await api.patchForm(form.id, { webhooks: [...hooks, { url }] });
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
      await api.patchForm(form.id, { webhooks: hooks.filter((_, n) => n !== index) });
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
        day until the receiver answers 2xx. <strong>Send test</strong> sends the latest submission
        (or a sample) at once, marked as a test, and shows what the receiver answered.
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
          <TargetWarning api={api} url={h.url} />
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
      <Alert message={problem} />
      <p role="status">{status}</p>
    </>
  );
}

/**
 * Says at once, not at the first failed delivery, when the server's address policy will refuse a
 * webhook (a receiver on this machine or a private network), and which setting allows it.
 */
function TargetWarning(props: { api: TabProps['api']; url: string }) {
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    props.api.checkWebhookTarget(props.url).then(
      (r) => {
        if (live) setProblem(r.problem);
      },
      () => undefined, // the check is advice; the delivery log still tells what happened
    );
    return () => {
      live = false;
    };
  }, [props.api, props.url]);
  if (!problem) return null;
  return (
    <p class="warning">
      <strong>The server will refuse to deliver here.</strong> {problem}. Send test and every
      delivery will fail until its operator sets that (or the webhook goes to a public address).
    </p>
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
