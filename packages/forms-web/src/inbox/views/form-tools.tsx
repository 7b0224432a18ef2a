// A form's tools above its feed: its settings, export (CSV, JSON) and the embed code.
import { useState } from 'preact/hooks';
import type { Api } from '../api.js';
import { hostedLink, runtimeSnippet } from '../embed-urls.js';
import { href } from '../route.js';
import { useLoad } from '../use-load.js';

export function FormTools(props: { api: Api; form: string }) {
  return (
    <>
      <p>
        <a href={href.settings(props.form)} class="button-link">
          Form settings
        </a>
      </p>
      <ExportLinks {...props} />
      <EmbedCode {...props} />
    </>
  );
}

function ExportLinks(props: { api: Api; form: string }) {
  const [error, setError] = useState<string | null>(null);
  // The export needs the bearer token, which a plain link cannot carry: fetch, then save the blob.
  const download = async (format: 'csv' | 'json', labels = false) => {
    setError(null);
    try {
      const res = await props.api.exportFile(props.form, format, labels);
      const url = URL.createObjectURL(await res.blob());
      const a = document.createElement('a');
      a.href = url;
      // The server names the file (org, form, date); fall back to the form's name.
      const named = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '');
      a.download = named?.[1] ?? `${props.form}-submissions.${format}`;
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => {
        URL.revokeObjectURL(url);
      }, 10_000);
    } catch (err) {
      setError(`Export failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  };
  return (
    <p class="exports">
      <button type="button" class="secondary" onClick={() => void download('csv')}>
        Export CSV
      </button>
      <button type="button" class="secondary" onClick={() => void download('csv', true)}>
        Export CSV with labels
      </button>
      <button type="button" class="secondary" onClick={() => void download('json')}>
        Export JSON
      </button>
      {error && (
        <span class="error" role="alert">
          {' '}
          {error}
        </span>
      )}
    </p>
  );
}

/** The one tag that embeds the form (docs/forms-web.md, "Embedding a form"), ready to copy. */
function EmbedCode(props: { api: Api; form: string }) {
  const { data } = useLoad(
    () => props.api.formInfo(props.form),
    [props.api, props.form],
    () => {
      // the feed above already signs out on a 401
    },
  );
  if (!data) return null;
  const tag = runtimeSnippet(data.embedUrl);
  const hosted = hostedLink(data.embedUrl, props.api.org, props.form);
  return (
    <details class="embed">
      <summary>Embed this form</summary>
      <p>
        Paste this tag where the form should appear, and add the site's origin to the form's{' '}
        <a href={href.settings(props.form, 'origins')}>allowed origins</a>; more ways under{' '}
        <a href={href.settings(props.form, 'embed')}>Embed</a>:
      </p>
      <pre tabIndex={0}>
        <code>{tag}</code>
      </pre>
      <p>
        Or link to its own page: <a href={hosted}>{hosted}</a>
      </p>
    </details>
  );
}
