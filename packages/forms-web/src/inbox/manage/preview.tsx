// The live preview: the real runtime (/runtime.js, the same file websites embed) in a same-origin
// frame, given the draft instead of a stored definition. The frame answers the runtime's two
// requests itself: the definition URL with the draft, and a send with a made-up receipt, so a
// preview never stores a submission.
import { useEffect, useState } from 'preact/hooks';

const DEFINITION_URL = 'https://preview.havn.invalid/definition';

function frameDocument(definition: unknown): string {
  const served = JSON.stringify({
    ...(definition as object),
    submit: { submitUrl: 'https://preview.havn.invalid/submissions', submitMethod: 'POST' },
  }).replace(/</g, '\\u003c');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Preview</title>
<style>body{margin:0;padding:1rem;background:#fff;font-family:system-ui,sans-serif}</style>
<script>
const served = ${served};
const realFetch = window.fetch.bind(window);
window.fetch = (input, init) => {
  const url = String(input instanceof Request ? input.url : input);
  if (!url.startsWith('https://preview.havn.invalid/')) return realFetch(input, init);
  const body = url.endsWith('/definition') ? served : { status: 'received', id: 'preview' };
  return Promise.resolve(new Response(JSON.stringify(body), {
    status: 200, headers: { 'content-type': 'application/json' },
  }));
};
</script></head><body><main id="form"></main>
<script src="${location.origin}/runtime.js" data-form="${DEFINITION_URL}" data-target="#form"></script>
</body></html>`;
}

/** Shows `definition` (the last draft that passed the checks) once typing pauses. */
export function Preview(props: { definition: unknown; stale: boolean }) {
  const [doc, setDoc] = useState(() => frameDocument(props.definition));
  // A new frame for the same draft: the form again after a Send in the preview.
  const [round, setRound] = useState(0);
  useEffect(() => {
    const t = setTimeout(() => {
      setDoc(frameDocument(props.definition));
    }, 300);
    return () => {
      clearTimeout(t);
    };
  }, [props.definition]);
  return (
    <div class="preview">
      <h3 id="preview-title">Preview</h3>
      <p class="muted">
        {props.stale
          ? 'Showing the last version without problems. Fix the problems to update it.'
          : 'The form as people will see it. Sending here stores nothing.'}
      </p>
      <iframe key={round} title="Preview of the form" srcDoc={doc} />
      <p>
        <button
          type="button"
          class="secondary small-button"
          onClick={() => {
            setRound(round + 1);
          }}
        >
          Reset preview
        </button>
      </p>
    </div>
  );
}
