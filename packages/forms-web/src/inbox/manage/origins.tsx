// The form's allowed origins: only pages on these origins can load and send the form
// (docs/forms-web.md, "Embedding a form"). Checked as the server checks them; written with
// the server's PATCH so the webhooks and the rest stay as they are.
import { useState } from 'preact/hooks';
import { hostedLink } from '../embed-urls.js';
import { errorText } from './error-text.js';
import { originProblem } from './form-admin.js';
import type { TabProps } from './form-settings.js';

export function Origins({ api, info, reload }: TabProps) {
  const { form } = info;
  const origins = form.allowedOrigins;
  const hosted = new URL(info.embedUrl).origin;
  const hostedPage = hostedLink(info.embedUrl, api.org, form.id);
  const [value, setValue] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);

  const write = async (next: string[], done: string) => {
    setProblem(null);
    setStatus(null);
    try {
      await api.patchForm(form.id, { allowedOrigins: next });
      setStatus(done);
      reload();
      return true;
    } catch (err) {
      setProblem(errorText(err));
      return false;
    }
  };
  const add = async (e: Event) => {
    e.preventDefault();
    const origin = value.trim();
    const bad = originProblem(origin);
    if (bad) {
      setProblem(bad);
      return;
    }
    if (origins.includes(origin)) {
      setProblem(`${origin} is in the list already.`);
      return;
    }
    if (await write([...origins, origin], `Added ${origin}.`)) setValue('');
  };

  return (
    <>
      <p>
        Pages on these origins can show and send the form. An origin is the scheme, host and port of
        a site, like <code>https://www.example.com</code>.
      </p>
      {origins.length === 0 && (
        <p class="warning">
          No origin is allowed yet, so the form can only be previewed: no website, not even its
          hosted page, can show or send it.
        </p>
      )}
      {!origins.includes(hosted) && (
        <div class="warning">
          <p>
            The form's hosted page (<a href={hostedPage}>{hostedPage}</a>) cannot send answers: its
            origin {hosted} is not allowed.
          </p>
          <button
            type="button"
            class="secondary"
            onClick={() => void write([...origins, hosted], `Added ${hosted}.`)}
          >
            Allow {hosted}
          </button>
        </div>
      )}
      {origins.length > 0 && (
        <ul class="plain-list" aria-label="Allowed origins">
          {origins.map((o) => (
            <li key={o}>
              <code>{o}</code>
              <button
                type="button"
                class="secondary"
                aria-label={`Remove ${o}`}
                onClick={() =>
                  void write(
                    origins.filter((x) => x !== o),
                    `Removed ${o}.`,
                  )
                }
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      <form class="row" onSubmit={(e) => void add(e)} noValidate>
        <span class="field-inline grow">
          <label for="origin-new">Origin to allow</label>
          <input
            id="origin-new"
            type="url"
            value={value}
            placeholder="https://www.example.com"
            autoCapitalize="off"
            spellcheck={false}
            aria-invalid={problem ? 'true' : undefined}
            aria-describedby={problem ? 'origin-problem' : undefined}
            onInput={(e) => {
              setValue(e.currentTarget.value);
            }}
          />
        </span>
        <button type="submit">Add origin</button>
      </form>
      {problem && (
        <p id="origin-problem" class="error" role="alert">
          {problem}
        </p>
      )}
      <p role="status">{status}</p>
    </>
  );
}
