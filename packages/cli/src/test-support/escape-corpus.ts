// Escape sequences and control characters that telemetry text may carry, each with what a terminal
// would do with it, and the visible text that must survive. The safety tests run every entry
// through every text format.
export interface EscapeCase {
  readonly name: string;
  readonly raw: string;
  /** What table, tsv and csv must show of `raw`. */
  readonly shown: string;
}

const ESC = '\u001b';
const BEL = '\u0007';
const ST = `${ESC}\\`;

export const ESCAPE_CORPUS: readonly EscapeCase[] = [
  { name: 'OSC 0 window title (BEL)', raw: `a${ESC}]0;pwned${BEL}b`, shown: 'ab' },
  { name: 'OSC 2 title (ST)', raw: `a${ESC}]2;pwned${ST}b`, shown: 'ab' },
  {
    name: 'OSC 8 hyperlink',
    raw: `${ESC}]8;;https://evil.test${ST}click${ESC}]8;;${ST}`,
    shown: 'click',
  },
  { name: 'OSC 52 clipboard write', raw: `x${ESC}]52;c;cm0gLXJmIH4=${BEL}y`, shown: 'xy' },
  { name: 'unterminated OSC', raw: `keep${ESC}]0;the rest`, shown: 'keep' },
  { name: 'erase line, cursor up', raw: `${ESC}[2K${ESC}[1Afake line`, shown: 'fake line' },
  { name: 'SGR colour', raw: `${ESC}[31;1mred${ESC}[0m`, shown: 'red' },
  { name: 'alternate screen', raw: `${ESC}[?1049hhidden${ESC}[?1049l`, shown: 'hidden' },
  { name: 'clear screen, home', raw: `${ESC}[2J${ESC}[Hwiped`, shown: 'wiped' },
  { name: 'DCS request', raw: `${ESC}P$q"p${ST}dcs`, shown: 'dcs' },
  { name: 'APC', raw: `${ESC}_payload${ST}apc`, shown: 'apc' },
  { name: 'reset (ESC c)', raw: `${ESC}creset`, shown: 'reset' },
  { name: 'save cursor (ESC 7)', raw: `${ESC}7save${ESC}8`, shown: 'save' },
  { name: 'charset switch (ESC ( 0)', raw: `${ESC}(0lqk${ESC}(B`, shown: 'lqk' },
  { name: 'lone ESC at the end', raw: `end${ESC}`, shown: 'end' },
  { name: '8-bit CSI', raw: `c1\u009b2Jcsi`, shown: 'c1csi' },
  { name: '8-bit OSC', raw: `t\u009d0;pwned${BEL}itle`, shown: 'title' },
  { name: 'C1 NEL and IND', raw: `n\u0085e\u0084l`, shown: 'nel' },
  { name: 'NUL, BEL, backspace', raw: `a\u0000b${BEL}c\bd`, shown: 'abcd' },
  { name: 'carriage return overwrite', raw: `innocent\rEVIL`, shown: 'innocent EVIL' },
  { name: 'vertical tab, form feed, DEL', raw: `v\u000bf\u000cd\u007f!`, shown: 'vfd!' },
  { name: 'unit separator', raw: `u\u001fs`, shown: 'us' },
  { name: 'line and paragraph separators', raw: `l\u2028s\u2029p`, shown: 'l s p' },
];
