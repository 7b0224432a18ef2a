// A plain textarea for JSON with line numbers and each problem written at the end of the line it
// belongs to. A layer behind the (transparent) textarea repeats the text invisibly, so the
// messages sit exactly after each line; a list under it names every problem for screen readers and
// moves the caret to the line on request.
import { useRef, useState } from 'preact/hooks';

export interface LineProblem {
  line: number;
  message: string;
}

export function CodeEditor(props: {
  id: string;
  label: string;
  value: string;
  problems: LineProblem[];
  onInput: (value: string) => void;
}) {
  const area = useRef<HTMLTextAreaElement>(null);
  const [scroll, setScroll] = useState({ top: 0, left: 0 });
  const lines = props.value.split('\n');
  const byLine = new Map<number, string[]>();
  for (const p of props.problems) byLine.set(p.line, [...(byLine.get(p.line) ?? []), p.message]);
  const listId = `${props.id}-problems`;

  const goTo = (line: number) => {
    const el = area.current;
    if (!el) return;
    const start = lines.slice(0, line - 1).reduce((n, l) => n + l.length + 1, 0);
    el.focus();
    el.setSelectionRange(start, start + (lines[line - 1]?.length ?? 0));
    // Bring the line into view with a little context above it.
    const lineHeight = parseFloat(getComputedStyle(el).lineHeight) || 20;
    el.scrollTop = Math.max(0, (line - 4) * lineHeight);
  };

  return (
    <div class="code-editor">
      <label for={props.id}>{props.label}</label>
      <div class="code-frame">
        <div class="code-gutter" aria-hidden="true">
          <div style={{ transform: `translateY(${String(-scroll.top)}px)` }}>
            {lines.map((_, n) => (
              <div key={n} class={byLine.has(n + 1) ? 'bad' : undefined}>
                {n + 1}
              </div>
            ))}
          </div>
        </div>
        <div class="code-area">
          <div
            class="code-backdrop"
            aria-hidden="true"
            style={{
              transform: `translate(${String(-scroll.left)}px, ${String(-scroll.top)}px)`,
            }}
          >
            {lines.map((l, n) => {
              const messages = byLine.get(n + 1);
              return (
                <div key={n} class={messages ? 'code-line bad' : 'code-line'}>
                  {/* A blank line still takes a line's height, so the lines below stay aligned. */}
                  <span class="ghost">{l === '' ? ' ' : l}</span>
                  {messages && <span class="inline-problem">{`  ← ${messages.join('; ')}`}</span>}
                </div>
              );
            })}
          </div>
          <textarea
            ref={area}
            id={props.id}
            class="code-input"
            value={props.value}
            wrap="off"
            spellcheck={false}
            autoCapitalize="off"
            autoComplete="off"
            aria-describedby={listId}
            aria-invalid={props.problems.length ? 'true' : undefined}
            onInput={(e) => {
              props.onInput(e.currentTarget.value);
            }}
            onScroll={(e) => {
              setScroll({ top: e.currentTarget.scrollTop, left: e.currentTarget.scrollLeft });
            }}
          />
        </div>
      </div>
      <div id={listId} class="code-problems">
        <p role="status">
          {props.problems.length === 0
            ? 'No problems found.'
            : `${String(props.problems.length)} ${props.problems.length === 1 ? 'problem' : 'problems'}:`}
        </p>
        {props.problems.length > 0 && (
          <ul>
            {props.problems.map((p, n) => (
              <li key={n}>
                <button
                  type="button"
                  class="link"
                  onClick={() => {
                    goTo(p.line);
                  }}
                >
                  Line {p.line}
                </button>
                : {p.message}
              </li>
            ))}
          </ul>
        )}
      </div>
    </div>
  );
}
