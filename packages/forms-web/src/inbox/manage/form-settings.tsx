// One form's settings: a tab per concern, each its own route so it can be linked and reloaded.
import { useState } from 'preact/hooks';
import type { Api, FormRecord } from '../api.js';
import { href, SETTINGS_TABS, type SettingsTab } from '../route.js';
import { useLoad } from '../use-load.js';
import { Alert } from '../alert.js';
import { DefinitionEditor } from './definition-editor.js';
import { errorText } from './error-text.js';
import { Embed } from './embed.js';
import { FormDetails } from './form-details.js';
import { Origins } from './origins.js';
import { Webhooks } from './webhooks.js';

export interface FormInfo {
  form: FormRecord;
  definition?: Record<string, unknown>;
  embedUrl: string;
}

export interface TabProps {
  api: Api;
  info: FormInfo;
  reload: () => void;
}

const TAB_NAMES: Record<SettingsTab, string> = {
  details: 'Details',
  definition: 'Definition',
  origins: 'Allowed origins',
  webhooks: 'Webhooks',
  embed: 'Embed',
};

export function FormSettings(props: {
  api: Api;
  form: string;
  tab: SettingsTab;
  onUnauthorized: () => void;
}) {
  const { data, error, reload } = useLoad(
    () => props.api.formInfo(props.form),
    [props.api, props.form],
    props.onUnauthorized,
  );
  const tabProps = data ? { api: props.api, info: data, reload } : null;
  return (
    <section aria-labelledby="settings-title" class="manage">
      <p>
        <a href={href.form(props.form)}>← Submissions</a>
      </p>
      <h1 id="settings-title">{data ? data.form.name || data.form.id : props.form}: settings</h1>
      <nav aria-label="Form settings" class="tabs">
        {SETTINGS_TABS.map((t) => (
          <a
            key={t}
            href={href.settings(props.form, t)}
            aria-current={t === props.tab ? 'page' : undefined}
          >
            {TAB_NAMES[t]}
          </a>
        ))}
      </nav>
      <Alert message={error} />
      {!data && !error && <p class="muted">Loading…</p>}
      {tabProps && (
        <div class="tab-body">
          <h2>{TAB_NAMES[props.tab]}</h2>
          {props.tab === 'details' && <FormDetails {...tabProps} />}
          {props.tab === 'details' && <NotifyRecipients {...tabProps} />}
          {props.tab === 'definition' && <DefinitionEditor {...tabProps} />}
          {props.tab === 'origins' && <Origins {...tabProps} />}
          {props.tab === 'webhooks' && <Webhooks {...tabProps} />}
          {props.tab === 'embed' && <Embed {...tabProps} />}
        </div>
      )}
    </section>
  );
}

/** The same bounds as the server's `notify` check (docs/forms.md#email-notices). */
const MAX_RECIPIENTS = 20;
const ADDRESS = /^[^\s<>@"(),;:\\[\]]{1,64}@[A-Za-z0-9.-]{1,253}$/;

/** One address a line (commas split too); the first entry that is not an address. */
function parseRecipients(text: string): { list: string[]; problem: string | null } {
  const list = text
    .split(/[\n,;]+/)
    .map((a) => a.trim())
    .filter(Boolean);
  const bad = list.find((a) => a.length > 254 || !ADDRESS.test(a));
  if (bad !== undefined) return { list, problem: `“${bad}” is not an email address.` };
  if (list.length > MAX_RECIPIENTS) {
    return { list, problem: `List at most ${String(MAX_RECIPIENTS)} addresses.` };
  }
  return { list, problem: null };
}

/**
 * Who gets an email for each new submission. Saved with PATCH, so only `notify` changes, whatever
 * else the form holds.
 */
function NotifyRecipients({ api, info, reload }: TabProps) {
  const { form } = info;
  const [text, setText] = useState(form.notify.join('\n'));
  const [status, setStatus] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const save = async (e: Event) => {
    e.preventDefault();
    setStatus(null);
    setError(null);
    const { list, problem } = parseRecipients(text);
    if (problem) {
      setError(problem);
      return;
    }
    try {
      const saved = await api.patchForm(form.id, { notify: list });
      const n = saved.notify.length;
      setText(saved.notify.join('\n'));
      setStatus(
        n === 0
          ? 'Saved. Nobody gets an email of new submissions.'
          : `Saved. ${n === 1 ? '1 address gets' : `${String(n)} addresses get`} an email of each new submission.`,
      );
      reload();
    } catch (err) {
      setError(errorText(err));
    }
  };
  return (
    <form class="stack" aria-labelledby="notify-title" onSubmit={(e) => void save(e)} noValidate>
      <h3 id="notify-title">Email notices</h3>
      <label for="fs-notify">Send an email of each new submission to</label>
      <textarea
        id="fs-notify"
        rows={3}
        value={text}
        placeholder="sales@example.com"
        autoCapitalize="off"
        spellcheck={false}
        aria-describedby="fs-notify-help"
        aria-invalid={error ? 'true' : undefined}
        onInput={(e) => {
          setText(e.currentTarget.value);
        }}
      />
      <p id="fs-notify-help" class="muted">
        One address a line, up to {MAX_RECIPIENTS}. Spam is never mailed. The server sends these
        only when its operator has set up SMTP.
      </p>
      <p>
        <button type="submit">Save recipients</button> <span role="status">{status}</span>
      </p>
      <Alert message={error} />
    </form>
  );
}
