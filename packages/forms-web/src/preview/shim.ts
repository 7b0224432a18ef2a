// The inbox's live preview frame (docs/forms-web.md#the-definition-editor) loads this before the
// runtime: it answers the runtime's two requests itself, the definition URL with the draft the
// frame carries as a JSON data block and a send with a made-up receipt, so a preview never stores
// a submission. A served file rather than an inline script, so the inbox's Content-Security-Policy
// allows no inline script at all (docs/forms.md#page-headers). It marks the frame once the form
// is shown, which the inbox reads to know the preview has caught up with the draft.
const PREVIEW_ORIGIN = 'https://preview.havn.invalid/';

const draft: unknown = JSON.parse(document.getElementById('havn-draft')?.textContent ?? 'null');
const realFetch = window.fetch.bind(window);

window.fetch = (input: RequestInfo | URL, init?: RequestInit) => {
  const url = input instanceof Request ? input.url : String(input);
  if (!url.startsWith(PREVIEW_ORIGIN)) return realFetch(input, init);
  const body = url.endsWith('/definition') ? draft : { status: 'received', id: 'preview' };
  return Promise.resolve(
    new Response(JSON.stringify(body), {
      status: 200,
      headers: { 'content-type': 'application/json' },
    }),
  );
};

document.addEventListener('havn:ready', () => {
  document.documentElement.setAttribute('data-havn-ready', '');
});
