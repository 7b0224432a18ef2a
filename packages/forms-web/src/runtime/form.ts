// Loads a public definition, renders it into a shadow root and submits it (docs/forms-web.md;
// docs/forms.md#public-no-token-gated-by-the-forms-allowedorigins for the two public endpoints and
// their credentialed CORS).
import type { AnswerValue, PublicDefinition } from './definition.js';
import { displayOrder, visibility } from '@havn/forms/show-if';
import { el } from './dom.js';
import { buildField, type Field } from './fields.js';
import { PowSolver } from './proof-of-work.js';
import { STYLES } from './styles.js';
import { DraftStore } from './resume.js';
import { loadTexts, Texts } from './texts.js';
import { type RawValue, toAnswer, validateAnswer } from './validate.js';

/**
 * After a CORS fetch failed: was the server reachable? The server answers an origin outside
 * allowedOrigins with a 403 that carries no CORS headers, which the page sees only as a failed
 * fetch. An opaque no-cors GET (never a POST: it must not submit) succeeds when the server
 * answered at all, so a failure there is the network's and a success means the origin was refused.
 */
async function reachable(url: string): Promise<boolean> {
  try {
    await fetch(url, { mode: 'no-cors', credentials: 'include', cache: 'no-store' });
    return true;
  } catch {
    return false;
  }
}

async function errorText(res: Response): Promise<string> {
  try {
    const body = (await res.json()) as { error?: unknown };
    if (typeof body.error === 'string') return body.error;
  } catch {
    // not JSON: fall through to the status
  }
  return `the server answered ${res.status}.`;
}

function attachStyles(root: ShadowRoot): void {
  // A constructed sheet is not subject to the host page's CSP style-src; <style> is the fallback.
  if ('adoptedStyleSheets' in root && typeof CSSStyleSheet.prototype.replaceSync === 'function') {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(STYLES);
    root.adoptedStyleSheets = [sheet];
  } else root.append(el('style', {}, STYLES));
}

/** Renders the form of `definitionUrl` into `host` (its shadow root); resolves when shown. */
export async function mountForm(
  host: HTMLElement,
  definitionUrl: string,
  runtimeUrl: string,
): Promise<void> {
  // Until the definition names its locale, the runtime speaks English.
  const en = new Texts();
  const root = host.shadowRoot ?? host.attachShadow({ mode: 'open' });
  root.replaceChildren();
  attachStyles(root);
  const box = el('div', { class: 'form', part: 'container' });
  root.append(box);
  const notice = (text: string, retry?: () => void) => {
    box.replaceChildren(
      el(
        'div',
        { class: 'alert', role: 'alert', part: 'alert' },
        text,
        retry ? retryButton(retry, en) : null,
      ),
    );
  };
  box.append(el('p', { role: 'status' }, en.t('loading')));

  let res: Response;
  try {
    res = await fetch(definitionUrl, {
      credentials: 'include',
      headers: { accept: 'application/json' },
    });
  } catch {
    if (await reachable(definitionUrl)) notice(en.t('origin', { origin: location.origin }));
    else {
      const reload = () => void mountForm(host, definitionUrl, runtimeUrl);
      notice(en.t('loadFailed'), reload);
      // Offline when the page opened: show the form by itself once the connection is back.
      if (!navigator.onLine) addEventListener('online', reload, { once: true });
    }
    return;
  }
  if (res.status === 403) notice(en.t('origin', { origin: location.origin }));
  else if (res.status === 404) notice(en.t('notFound'));
  else if (!res.ok)
    notice(en.t('loadFailed'), () => void mountForm(host, definitionUrl, runtimeUrl));
  if (!res.ok) return;
  const definition = (await res.json()) as PublicDefinition;
  // docs/forms-web.md#languages: the form's own language, right to left where it is written so.
  const tx = await loadTexts(definition.locale, definition.texts, runtimeUrl);
  box.lang = tx.lang;
  box.dir = tx.dir;
  box.replaceChildren(renderForm(host, definition, definitionUrl, tx));
  host.dispatchEvent(
    new CustomEvent('havn:ready', { detail: { title: definition.intro.title }, bubbles: true }),
  );
}

function retryButton(onClick: () => void, tx: Texts): HTMLButtonElement {
  const b = el('button', { type: 'button', part: 'button' }, tx.t('tryAgain'));
  b.addEventListener('click', onClick);
  return b;
}

function renderForm(
  host: HTMLElement,
  def: PublicDefinition,
  url: string,
  tx: Texts,
): HTMLFormElement {
  const { intro } = def;
  // docs/definition-format.md#steps-and-conditions: the questions in display order, each with its
  // page; ids stay those of the question's place in `questions`.
  const order = displayOrder(def);
  const fields: Field[] = order.map(({ question }) =>
    buildField(question, def.questions.indexOf(question), tx),
  );
  // Spam honeypot (definition-format.md): hidden from people and assistive technology, unfocusable,
  // so only a form-filling bot puts text in it.
  const trap = el('input', {
    type: 'text',
    name: '_gotcha',
    tabindex: -1,
    autocomplete: 'off',
    'aria-hidden': 'true',
  });
  const alert = el('div', { class: 'alert', role: 'alert', part: 'alert' });
  const button = el('button', { type: 'submit', part: 'button' }, tx.t('send'));
  const back = el('button', { type: 'button', class: 'back', part: 'button back' }, tx.t('back'));
  const clear = el(
    'button',
    { type: 'button', class: 'back clear', part: 'button clear', hidden: true },
    tx.t('clear'),
  );
  // Each step is announced by moving focus to its heading ("Step 2 of 3: Company").
  const stepHeading = el('h3', { class: 'step', tabindex: -1, part: 'step', hidden: true });
  // docs/forms-web.md#spam-protection: a "pow" form starts its proof of work now, while the
  // person reads and types; the send waits for it only if it is not done by then.
  const { challengeUrl } = def.submit;
  const solver =
    def.submit.spamProtection === 'pow' && challengeUrl ? new PowSolver(challengeUrl) : undefined;
  solver?.start();
  const form = el(
    'form',
    { novalidate: true, 'aria-labelledby': 'title', part: 'form' },
    el(
      'div',
      { class: 'intro' },
      el('h2', { id: 'title' }, intro.title),
      intro.text ? el('p', {}, intro.text) : null,
      intro.image ? el('img', { src: intro.image.url, alt: intro.image.alt }) : null,
    ),
    stepHeading,
    ...fields.map((f) => f.root),
    el('div', { class: 'trap', 'aria-hidden': 'true' }, trap),
    alert,
    el('div', { class: 'nav' }, back, button, clear),
  );

  const answers = (): Record<string, AnswerValue> => {
    const out: Record<string, AnswerValue> = {};
    for (const f of fields) {
      const value = toAnswer(f.question, f.read().raw, tx);
      if (value !== undefined) out[f.question.logicalName] = value;
    }
    return out;
  };
  // The page on screen, and what the answers so far show (the evaluator the server runs too).
  let page = order[0]?.page ?? 0;
  let shown = visibility(def, {});
  let pages: number[] = [];
  const isShown = (f: Field, i: number) =>
    order[i]?.page === page && shown.questions.has(f.question.logicalName);
  const refresh = () => {
    shown = visibility(def, answers());
    pages = shown.pages.flatMap((on, i) => (on ? [i] : []));
    fields.forEach((f, i) => (f.root.hidden = !isShown(f, i)));
    const at = pages.indexOf(page);
    button.textContent = at < pages.length - 1 ? tx.t('next') : tx.t('send');
    back.hidden = at <= 0;
    const title = def.pages?.[page]?.title;
    stepHeading.hidden = pages.length < 2;
    stepHeading.textContent =
      tx.t('step', { n: at + 1, count: pages.length }) + (title ? `: ${title}` : '');
  };
  // docs/forms-web.md#resumable-answers: the answers so far, kept in this browser, put back now.
  const drafts = def.resume === false ? undefined : new DraftStore(url, def);
  const draft = drafts?.load();
  const keep = (f: Field) => !f.question.sensitive;
  if (draft) {
    for (const f of fields) {
      const raw = draft.answers[f.question.logicalName];
      if (raw !== undefined && keep(f)) f.write(raw);
    }
  }
  refresh();
  if (draft && pages.includes(draft.page)) page = draft.page;
  refresh();
  clear.hidden = !draft;
  const saveDraft = () => {
    if (!drafts) return;
    const kept: Record<string, RawValue> = {};
    for (const f of fields) {
      const { raw } = f.read();
      if (keep(f) && toAnswer(f.question, raw, tx) !== undefined)
        kept[f.question.logicalName] = raw;
    }
    drafts.save({ answers: kept, page });
    clear.hidden = false;
  };
  const goTo = (to: number | undefined) => {
    if (to === undefined) return;
    page = to;
    alert.replaceChildren();
    refresh();
    saveDraft();
    stepHeading.focus();
  };
  clear.addEventListener('click', () => {
    drafts?.clear();
    form.reset();
    for (const f of fields) f.showError(null);
    clear.hidden = true;
    page = order[0]?.page ?? 0;
    alert.replaceChildren();
    refresh();
    (fields.find((f, i) => isShown(f, i))?.focusTarget ?? stepHeading).focus();
  });
  back.addEventListener('click', () => {
    goTo(pages[pages.indexOf(page) - 1]);
  });

  // Once a field has shown an error, re-check it as the person types so the error clears; every
  // change may show or hide questions and steps.
  for (const f of fields) {
    f.root.addEventListener('input', () => {
      if (f.root.querySelector('[aria-invalid=true]')) {
        const { raw, badInput } = f.read();
        f.showError(validateAnswer(f.question, raw, badInput, tx, f.files?.()));
      }
    });
  }
  for (const type of ['input', 'change']) {
    form.addEventListener(type, () => {
      refresh();
      saveDraft();
    });
  }

  /** Checks the fields shown on screen; true when all are valid, else says so and focuses. */
  const check = (): boolean => {
    const invalid: Field[] = [];
    fields.forEach((f, i) => {
      if (!isShown(f, i)) return;
      const { raw, badInput } = f.read();
      const error = validateAnswer(f.question, raw, badInput, tx, f.files?.());
      f.showError(error);
      if (error) invalid.push(f);
    });
    if (invalid.length === 0) return true;
    alert.textContent = tx.t('invalid', { n: invalid.length });
    invalid[0]?.focusTarget.focus();
    return false;
  };

  const send = async () => {
    // Only what is shown is sent: an answer to a question the answers hide is left out.
    const body: Record<string, AnswerValue | Record<string, string>> = {};
    for (const [name, value] of Object.entries(answers())) {
      if (shown.questions.has(name)) body[name] = value;
    }
    const submitFields: Record<string, string> = { ...def.submitFields, _gotcha: trap.value };
    body.submitFields = submitFields;
    alert.replaceChildren();
    button.disabled = true;
    form.setAttribute('aria-busy', 'true');
    button.textContent = tx.t('sending');
    const fail = (text: string, retry: boolean) => {
      alert.replaceChildren(text, retry ? retryButton(() => void send(), tx) : '');
      // The solution just sent counts once: a retry needs a new one, started now.
      if (retry) solver?.start();
    };
    try {
      const altcha = await solver?.take();
      if (altcha !== undefined) submitFields.altcha = altcha;
      // docs/forms.md#file-uploads: with files, a multipart post whose progress is shown.
      const files = fields.flatMap((f) =>
        shown.questions.has(f.question.logicalName)
          ? (f.files?.() ?? []).map((file) => [f.question.logicalName, file] as const)
          : [],
      );
      const method = def.submit.submitMethod || 'POST';
      const res =
        files.length > 0
          ? await postWithProgress(def.submit.submitUrl, method, multipart(body, files), (n) => {
              button.textContent = tx.t('uploading', { n: Math.floor(n * 100) });
              host.dispatchEvent(
                new CustomEvent('havn:progress', { detail: { fraction: n }, bubbles: true }),
              );
            })
          : await fetch(def.submit.submitUrl, {
              method,
              credentials: 'include',
              headers: { 'content-type': 'application/json', accept: 'application/json' },
              body: JSON.stringify(body),
            });
      if (res.ok) {
        const { id } = (await res.json().catch(() => ({}))) as { id?: string };
        const thanks = el('div', { class: 'thanks', role: 'status', tabindex: -1, part: 'thanks' });
        thanks.textContent = def.thanks ?? tx.t('thanks');
        drafts?.clear();
        form.replaceWith(thanks);
        thanks.focus();
        host.dispatchEvent(new CustomEvent('havn:submitted', { detail: { id }, bubbles: true }));
        return;
      }
      if (res.status === 403) fail(tx.t('origin', { origin: location.origin }), false);
      else if (res.status === 404) fail(tx.t('gone'), false);
      else if (res.status === 413) fail(tx.t('tooLarge'), false);
      else if (res.status === 429) fail(tx.t('rateLimited'), true);
      else if (res.status >= 400 && res.status < 500)
        fail(tx.t('rejected', { reason: await errorText(res) }), false);
      else fail(tx.t('sendFailed'), true);
    } catch {
      if (await reachable(def.submit.submitUrl))
        fail(tx.t('origin', { origin: location.origin }), false);
      else fail(tx.t('sendFailed'), true);
    } finally {
      button.disabled = false;
      form.removeAttribute('aria-busy');
      refresh();
    }
  };
  // The one submit button is Next until the last step shown, where it is Send; Enter in a field
  // does the same, so a step is validated before the next one opens.
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (button.disabled || !check()) return;
    const next = pages[pages.indexOf(page) + 1];
    if (next !== undefined) goTo(next);
    else void send();
  });
  return form;
}

/**
 * The answers and files as a plain HTML form would post them (docs/forms.md#plain-html-posts):
 * each answer a field (each option of a list one), `submitFields.<name>` fields, the files as
 * parts under their question's name.
 */
function multipart(
  body: Record<string, AnswerValue | Record<string, string>>,
  files: readonly (readonly [string, File])[],
): FormData {
  const data = new FormData();
  for (const [name, value] of Object.entries(body)) {
    if (name === 'submitFields') {
      for (const [k, v] of Object.entries(value)) data.append(`submitFields.${k}`, String(v));
    } else if (Array.isArray(value)) for (const v of value) data.append(name, v);
    else if (typeof value !== 'object') data.append(name, String(value));
  }
  for (const [name, file] of files) data.append(name, file, file.name);
  return data;
}

/**
 * POSTs `data` with XMLHttpRequest, the one browser API that reports upload progress, calling
 * `progress` with the fraction sent; resolves with the answer as a Response.
 */
function postWithProgress(
  url: string,
  method: string,
  data: FormData,
  progress: (fraction: number) => void,
): Promise<Response> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(method, url);
    xhr.withCredentials = true;
    xhr.setRequestHeader('accept', 'application/json');
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) progress(e.loaded / e.total);
    };
    xhr.onload = () => {
      resolve(new Response(xhr.responseText, { status: xhr.status }));
    };
    xhr.onerror = () => {
      reject(new Error('the upload failed'));
    };
    xhr.send(data);
  });
}
