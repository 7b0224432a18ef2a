// Put the form on a site: the runtime tag, a plain HTML form, or the hosted page's link, each
// filled with this form's URLs and copied with one click.
import { CopyButton } from './copy-button.js';
import { hostedLink, runtimeSnippet } from '../embed-urls.js';
import { htmlFormSnippet } from './embed-snippets.js';
import type { TabProps } from './form-settings.js';

export function Embed({ api, info }: TabProps) {
  const { form } = info;
  const tag = runtimeSnippet(info.embedUrl);
  const hosted = hostedLink(info.embedUrl, api.org, form.id);
  const html = info.definition ? htmlFormSnippet(info.embedUrl, form.id, info.definition) : null;
  return (
    <>
      {form.allowedOrigins.length === 0 && (
        <p class="warning">
          No origin is allowed yet: add your site's origin under{' '}
          <a href={`#/forms/${encodeURIComponent(form.id)}/settings/origins`}>Allowed origins</a>{' '}
          first, or the form will not load there.
        </p>
      )}
      <section aria-labelledby="embed-runtime" class="snippet">
        <h3 id="embed-runtime">The form runtime (recommended)</h3>
        <p>
          Paste this tag where the form should appear. It validates answers, explains mistakes and
          follows the definition as you change it.
        </p>
        <pre tabIndex={0}>
          <code>{tag}</code>
        </pre>
        <CopyButton text={tag} label="Copy runtime tag" />
      </section>
      <section aria-labelledby="embed-html" class="snippet">
        <h3 id="embed-html">A plain HTML form</h3>
        {html ? (
          <>
            <p>
              The questions as plain HTML you can style yourself, with a few lines of script that
              send the answers as JSON. It does not follow later changes to the definition.
            </p>
            <pre tabIndex={0} class="tall">
              <code>{html}</code>
            </pre>
            <CopyButton text={html} label="Copy HTML form" />
          </>
        ) : (
          <p class="muted">Save a definition first: the form is made from its questions.</p>
        )}
      </section>
      <section aria-labelledby="embed-link" class="snippet">
        <h3 id="embed-link">The hosted page</h3>
        <p>
          A page with the form alone, for links. <a href={hosted}>{hosted}</a>
        </p>
        <CopyButton text={hosted} label="Copy link" />
      </section>
    </>
  );
}
