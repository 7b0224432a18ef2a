// One webhook's delivery log (docs/forms-web.md, "Managing forms"): every delivery newest first,
// each attempt with what it came to, the receiver's HTTP status and the first bytes of its answer,
// Redeliver per delivery, and Send test. The receiver's bytes are only ever text nodes here: the
// server bounds them and escapes control characters, and Preact never parses them as HTML.
import { useEffect, useState } from 'preact/hooks';
import type { Api } from '../api.js';
import { formatDate } from '../format.js';
import { href } from '../route.js';
import { useLoad } from '../use-load.js';
import { Alert } from '../alert.js';
import { errorText } from './error-text.js';
import { relativeTime } from './relative-time.js';
import {
  answerText,
  OUTCOME_LABEL,
  redeliverOne,
  sendWebhookTest,
  stateLabel,
  testOutcome,
  webhookDeliveries,
  type WebhookDelivery,
} from './webhook-log.js';

const PAGE = 10;
/** How long the log keeps refreshing for a redelivery's attempt to be recorded. */
const REDELIVERY_WATCH_MS = 30_000;

function When(props: { iso: string }) {
  return (
    <time dateTime={props.iso} title={formatDate(props.iso)}>
      {relativeTime(props.iso)}
    </time>
  );
}

/** "2 attempts · HTTP 500 · next try in 5 minutes", from the delivery's latest attempt. */
function summary(d: WebhookDelivery): string {
  const parts = [`${String(d.attempts)} ${d.attempts === 1 ? 'attempt' : 'attempts'}`];
  const last = d.attemptLog[0];
  if (last) parts.push(answerText(last));
  if (d.deliveredAt) parts.push(`delivered ${relativeTime(d.deliveredAt)}`);
  else if (d.nextAttemptAt) parts.push(`next try ${relativeTime(d.nextAttemptAt)}`);
  return parts.join(' · ');
}

function What(props: { form: string; d: WebhookDelivery }) {
  const { form, d } = props;
  if (d.submissionId === null) return <span>Test with a sample submission</span>;
  const link = <a href={href.submission(form, d.submissionId)}>submission</a>;
  return d.test ? <span>Test with the latest {link}</span> : <span>A new {link}</span>;
}

function Delivery(props: {
  form: string;
  d: WebhookDelivery;
  open: boolean;
  onRedeliver: (d: WebhookDelivery) => void;
}) {
  const { form, d } = props;
  const state = stateLabel(d);
  return (
    <li class="delivery">
      <div class="row">
        <span class={`state ${state.toLowerCase()}`}>{state}</span>
        <span class="grow">
          <What form={form} d={d} />, <When iso={d.createdAt} />
        </span>
        <button
          type="button"
          class="secondary"
          onClick={() => {
            props.onRedeliver(d);
          }}
        >
          Redeliver<span class="sr"> the delivery of {formatDate(d.createdAt)}</span>
        </button>
      </div>
      <p class="small muted">{summary(d)}</p>
      {d.attemptLog.length > 0 && (
        <details open={props.open}>
          <summary>Attempts</summary>
          <ol class="attempts" reversed>
            {d.attemptLog.map((a) => (
              <li key={a.attemptedAt + String(a.durationMs)}>
                <span class={`state ${a.outcome}`}>{OUTCOME_LABEL[a.outcome]}</span> ·{' '}
                {answerText(a)} · {a.durationMs} ms ·{' '}
                <time dateTime={a.attemptedAt}>{formatDate(a.attemptedAt)}</time>
                {a.status !== null && a.error && !a.response && <p class="small">{a.error}</p>}
                {a.response !== null && (
                  <>
                    <span class="sr">The receiver answered:</span>
                    <pre class="response">{a.response}</pre>
                  </>
                )}
              </li>
            ))}
          </ol>
        </details>
      )}
    </li>
  );
}

export function DeliveryLog(props: { api: Api; form: string; url: string }) {
  const { api, form, url } = props;
  const [older, setOlder] = useState<WebhookDelivery[]>([]);
  const [more, setMore] = useState<boolean | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const [testing, setTesting] = useState(false);
  const [outcome, setOutcome] = useState<{ ok: boolean; text: string } | null>(null);
  const { data, error, reload } = useLoad(
    async () => {
      const first = await webhookDeliveries(api, form, url, PAGE);
      setOlder([]);
      setMore(first.length === PAGE);
      return first;
    },
    [api, form, url],
    () => undefined, // the settings page above signs out on a 401
  );
  const rows = [...(data ?? []), ...older];
  // After Redeliver, the worker sends at once: refresh each second until the delivery's new
  // attempt is recorded (or a while has passed), however long a busy server takes.
  const [watching, setWatching] = useState<{ id: string; attempts: number; until: number } | null>(
    null,
  );
  useEffect(() => {
    if (!watching) return;
    const now = data?.find((d) => d.id === watching.id);
    if ((now && now.attempts > watching.attempts) || Date.now() > watching.until) {
      setWatching(null);
      return;
    }
    const t = setTimeout(reload, 1000);
    return () => {
      clearTimeout(t);
    };
  }, [watching, data, reload]);

  const showOlder = async () => {
    const last = rows.at(-1);
    if (!last) return;
    try {
      const page = await webhookDeliveries(api, form, url, PAGE, last.id);
      setOlder((o) => [...o, ...page]);
      setMore(page.length === PAGE);
    } catch (err) {
      setNote(errorText(err));
    }
  };
  const test = async () => {
    setTesting(true);
    setOutcome(null);
    try {
      setOutcome(testOutcome(await sendWebhookTest(api, form, url)));
      reload();
    } catch (err) {
      setOutcome({ ok: false, text: errorText(err) });
    } finally {
      setTesting(false);
    }
  };
  const redeliver = async (d: WebhookDelivery) => {
    setNote(null);
    try {
      await redeliverOne(api, form, d.id);
      setNote(`Redelivery of the delivery of ${formatDate(d.createdAt)} queued.`);
      setWatching({ id: d.id, attempts: d.attempts, until: Date.now() + REDELIVERY_WATCH_MS });
    } catch (err) {
      setNote(errorText(err));
    }
  };

  return (
    <section class="delivery-log" aria-label={`Deliveries to ${url}`}>
      <div class="row">
        <h3 class="grow">Deliveries</h3>
        <button type="button" class="secondary" disabled={testing} onClick={() => void test()}>
          {testing ? 'Sending a test…' : 'Send test'}
        </button>
        <button type="button" class="secondary" onClick={reload}>
          Refresh
        </button>
      </div>
      <p role="status" class={outcome && !outcome.ok ? 'error' : undefined}>
        {outcome?.text}
      </p>
      <Alert message={error} />
      {data && rows.length === 0 && (
        <p class="muted">
          No deliveries yet: they appear here once a submission arrives, or send a test.
        </p>
      )}
      {rows.length > 0 && (
        <ol class="deliveries">
          {rows.map((d, n) => (
            <Delivery
              key={d.id}
              form={form}
              d={d}
              open={n === 0}
              onRedeliver={(x) => void redeliver(x)}
            />
          ))}
        </ol>
      )}
      {more && (
        <button type="button" class="secondary" onClick={() => void showOlder()}>
          Show older deliveries
        </button>
      )}
      <p role="status">{note}</p>
    </section>
  );
}
