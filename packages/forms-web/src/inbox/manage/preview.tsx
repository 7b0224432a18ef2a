// The live preview: the real runtime (/runtime.js, the same file websites embed) in a same-origin
// frame, given the draft instead of a stored definition. The frame's /preview-shim.js answers the
// runtime's two requests itself (the draft, and a made-up receipt for a send), so a preview never
// stores a submission; the draft travels as a JSON data block, which is never run, so the inbox's
// policy allows no inline script (docs/forms.md#page-headers).
import { useEffect, useState } from 'preact/hooks';

const DEFINITION_URL = 'https://preview.havn.invalid/definition';

function frameDocument(definition: unknown): string {
  // `<` escaped: the draft's text can never close the data block.
  const served = JSON.stringify({
    ...(definition as object),
    submit: { submitUrl: 'https://preview.havn.invalid/submissions', submitMethod: 'POST' },
  }).replace(/</g, '\\u003c');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Preview</title>
<style>body{margin:0;padding:1rem;background:#fff;font-family:system-ui,sans-serif}</style>
<script type="application/json" id="havn-draft">${served}</script>
<script src="${location.origin}/preview-shim.js"></script></head><body><main id="form"></main>
<script src="${location.origin}/runtime.js" data-form="${DEFINITION_URL}" data-target="#form"></script>
</body></html>`;
}

/**
 * Shows `definition` (the last draft that passed the checks) once typing pauses. `aria-busy` says
 * whether the form shown is that draft's yet: false once the frame's runtime has shown it.
 */
export function Preview(props: { definition: unknown; stale: boolean }) {
  const [frame, setFrame] = useState(() => ({
    doc: frameDocument(props.definition),
    of: props.definition,
    id: 0,
  }));
  const [readyId, setReadyId] = useState(-1);
  // A new frame for the same draft: the form again after a Send in the preview.
  const [round, setRound] = useState(0);
  useEffect(() => {
    const t = setTimeout(() => {
      const doc = frameDocument(props.definition);
      // The same document is not loaded again (the frame would not reload, nor say it is ready).
      setFrame((f) => ({ doc, of: props.definition, id: f.doc === doc ? f.id : f.id + 1 }));
    }, 300);
    return () => {
      clearTimeout(t);
    };
  }, [props.definition]);
  const busy = frame.of !== props.definition || readyId !== frame.id;
  const onLoad = (e: Event) => {
    const id = frame.id;
    const doc = (e.currentTarget as HTMLIFrameElement).contentDocument;
    if (!doc) return;
    if (doc.documentElement.hasAttribute('data-havn-ready')) setReadyId(id);
    else {
      doc.addEventListener(
        'havn:ready',
        () => {
          setReadyId(id);
        },
        { once: true },
      );
    }
  };
  return (
    <div class="preview" aria-busy={busy ? 'true' : 'false'}>
      <h3 id="preview-title">Preview</h3>
      <p class="muted">
        {props.stale
          ? 'Showing the last version without problems. Fix the problems to update it.'
          : 'The form as people will see it. Sending here stores nothing.'}
      </p>
      <iframe key={round} title="Preview of the form" srcDoc={frame.doc} onLoad={onLoad} />
      <p>
        <button
          type="button"
          class="secondary small-button"
          onClick={() => {
            setReadyId(-1);
            setRound(round + 1);
          }}
        >
          Reset preview
        </button>
      </p>
    </div>
  );
}
