// One click copies `text`; the button says so (and a screen reader hears it) for a moment.
import { useState } from 'preact/hooks';

export function CopyButton(props: { text: string; label: string }) {
  const [done, setDone] = useState<string | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.text);
      setDone('Copied.');
    } catch {
      setDone('Copying was refused by the browser: select the text and copy it.');
    }
    setTimeout(() => {
      setDone(null);
    }, 4000);
  };
  return (
    <span class="copy">
      <button type="button" class="secondary" onClick={() => void copy()}>
        {props.label}
      </button>{' '}
      <span role="status">{done}</span>
    </span>
  );
}
