// One form's settings: a tab per concern, each its own route so it can be linked and reloaded.
import type { Api, FormRecord } from '../api.js';
import { href, SETTINGS_TABS, type SettingsTab } from '../route.js';
import { useLoad } from '../use-load.js';
import { DefinitionEditor } from './definition-editor.js';
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
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {!data && !error && <p class="muted">Loading…</p>}
      {tabProps && (
        <div class="tab-body">
          <h2>{TAB_NAMES[props.tab]}</h2>
          {props.tab === 'details' && <FormDetails {...tabProps} />}
          {props.tab === 'definition' && <DefinitionEditor {...tabProps} />}
          {props.tab === 'origins' && <Origins {...tabProps} />}
          {props.tab === 'webhooks' && <Webhooks {...tabProps} />}
          {props.tab === 'embed' && <Embed {...tabProps} />}
        </div>
      )}
    </section>
  );
}
