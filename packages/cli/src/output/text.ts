// Text measures for the table renderer: characters are code points (never half a surrogate
// pair), and East Asian wide characters and emoji take two terminal columns.

/** `text` cut to at most `max` characters, the last being an ellipsis when it was cut. */
export function truncate(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}

/** `text` cut to at most `width` terminal columns, with an ellipsis when cut, padded to `width`. */
export function fitWidth(text: string, width: number): string {
  if (width <= 0) return '';
  if (ASCII.test(text)) {
    return text.length <= width ? text.padEnd(width) : `${text.slice(0, width - 1)}…`;
  }
  let used = 0;
  let out = '';
  const full = displayWidth(text) <= width;
  for (const char of text) {
    const w = displayWidth(char);
    if (!full && used + w > width - 1) break;
    out += char;
    used += w;
  }
  if (!full) {
    out += '…';
    used += 1;
  }
  return out + ' '.repeat(Math.max(0, width - used));
}

/** Line breaks and tabs become spaces, so one row stays one line. */
export function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, ' ').replace(/\t/g, ' ');
}

// One column and one UTF-16 unit a character (printable ASCII, Latin, punctuation, arrows, box
// drawing, blocks, shapes, dingbats): the common case, measured without walking the text, which
// costs milliseconds over a few hundred lines of a trace before the JIT warms up.
const ASCII = /^[\x20-\x7e\u00a0-\u02ff\u2010-\u2027\u2030-\u2bff]*$/;

/** Terminal columns `text` occupies. */
export function displayWidth(text: string): number {
  if (ASCII.test(text)) return text.length;
  let width = 0;
  for (const char of text) width += charWidth(char.codePointAt(0) ?? 0);
  return width;
}

function charWidth(cp: number): number {
  if (cp === 0 || (cp >= 0x300 && cp <= 0x36f) || cp === 0x200d || (cp >= 0xfe00 && cp <= 0xfe0f)) {
    return 0;
  }
  const wide =
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0xa4cf && cp !== 0x303f) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1f64f) ||
    (cp >= 0x1f900 && cp <= 0x1f9ff) ||
    (cp >= 0x20000 && cp <= 0x3fffd);
  return wide ? 2 : 1;
}

export type Tint = 'green' | 'red' | 'yellow' | 'dim' | 'bold';

const SGR: Record<Tint, [number, number]> = {
  green: [32, 39],
  red: [31, 39],
  yellow: [33, 39],
  dim: [2, 22],
  bold: [1, 22],
};

/** `text` wrapped in the ANSI codes of `tint`, or untouched when colour is off. */
export function paint(text: string, tint: Tint | undefined, color: boolean): string {
  if (!color || tint === undefined || text === '') return text;
  const [on, off] = SGR[tint];
  return `\u001b[${String(on)}m${text}\u001b[${String(off)}m`;
}
