// The embed entry (docs/definition-format.md, "Where the web app lives"):
//   <script async src=".../runtime.js" data-form=".../api/orgs/<org>/forms/<form>/definition"></script>
// renders the form in place of the tag, or into the element named by `data-target`. On the hosted
// page `/f/<org>/<form>` the definition URL comes from the page's own path.
import { originRefused, showOriginRefused } from '../hosted/origin-check.js';
import { mountForm } from './form.js';

function hostedDefinitionUrl(): string | null {
  const m = /^\/f\/([^/]+)\/([^/]+)\/?$/.exec(location.pathname);
  return m ? `/api/orgs/${m[1] ?? ''}/forms/${m[2] ?? ''}/definition` : null;
}

function start(script: HTMLScriptElement): void {
  const url = script.dataset.form ?? hostedDefinitionUrl();
  if (!url) {
    console.error('havn runtime: data-form is missing on the script tag');
    return;
  }
  const selector = script.dataset.target;
  let host: HTMLElement | null = null;
  if (selector) {
    try {
      host = document.querySelector<HTMLElement>(selector);
    } catch {
      // not a CSS selector: a bare id
    }
    host ??= document.getElementById(selector);
    if (!host) console.error(`havn runtime: no element matches data-target "${selector}"`);
  }
  if (!host) {
    host = document.createElement('div');
    host.className = 'havn-form';
    script.after(host);
  }
  if (!script.dataset.form) {
    // The hosted page is the form alone: its tab shows the form's title.
    host.addEventListener('havn:ready', (e) => {
      document.title = (e as CustomEvent<{ title: string }>).detail.title;
    });
  }
  const definitionUrl = new URL(url, script.src || location.href).href;
  // Locale texts are loaded from beside the runtime (docs/forms-web.md#languages).
  const runtimeUrl = script.src || location.href;
  if (script.dataset.form) void mountForm(host, definitionUrl, runtimeUrl);
  else void mountHosted(host, definitionUrl, runtimeUrl);
}

/** The hosted page asks first whether its own origin may send answers (see originRefused). */
async function mountHosted(
  host: HTMLElement,
  definitionUrl: string,
  runtimeUrl: string,
): Promise<void> {
  if (await originRefused(definitionUrl.replace(/\/definition$/, '/submissions'))) {
    showOriginRefused(host, location.origin);
    return;
  }
  await mountForm(host, definitionUrl, runtimeUrl);
}

const current = document.currentScript;
if (current instanceof HTMLScriptElement) {
  if (document.readyState === 'loading' && current.dataset.target) {
    // The target may come after the tag in the page.
    document.addEventListener(
      'DOMContentLoaded',
      () => {
        start(current);
      },
      { once: true },
    );
  } else start(current);
}
