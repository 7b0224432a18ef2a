// Telemetry text is written by whoever can send telemetry, so it is untrusted: a message holding
// `ESC ] 0;… BEL` retitles the terminal, `ESC [2K ESC [1A` rewrites lines already printed, and a
// CSV cell `=HYPERLINK(…)` runs as a formula in a spreadsheet. docs/cli.md#safety: every text
// cell of table, tsv and csv output goes through here; Json stays exact (it is data; json-text.ts
// escapes every control character in it).

// ESC sequences as terminals parse them (ECMA-48): CSI `ESC [ params final`, OSC `ESC ] … BEL|ST`,
// DCS/SOS/PM/APC `ESC P|X|^|_ … ST`, any other `ESC intermediates final`; and their 8-bit C1 forms.
// An unterminated string sequence runs to the end of the text, as it would on a terminal.
const ESCAPE_SEQUENCES = new RegExp(
  [
    '\\u001b\\[[0-?]*[ -/]*[@-~]?',
    '\\u001b\\][^\\u0007\\u001b\\u009c]*(?:\\u0007|\\u001b\\\\|\\u009c)?',
    '\\u001b[PX^_][^\\u001b\\u009c]*(?:\\u001b\\\\|\\u009c)?',
    '\\u001b[ -/]*[0-~]?',
    '\\u009b[0-?]*[ -/]*[@-~]?',
    '\\u009d[^\\u0007\\u001b\\u009c]*(?:\\u0007|\\u001b\\\\|\\u009c)?',
    '[\\u0090\\u0098\\u009e\\u009f][^\\u001b\\u009c]*(?:\\u001b\\\\|\\u009c)?',
  ].join('|'),
  'g',
);
// C0 except tab, DEL, C1. Line breaks are handled before this, so words on either side stay apart.
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/g;
const LINE_BREAKS = /\r\n|[\r\n\u2028\u2029]/g;

// Anything the replacements below would touch; most text has none, and one test is cheaper.
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029]/;

/** `text` without escape sequences and control characters (tab kept); a line break is a space. */
export function stripControls(text: string): string {
  if (!UNSAFE.test(text)) return text;
  return text.replace(LINE_BREAKS, ' ').replace(ESCAPE_SEQUENCES, '').replace(CONTROLS, '');
}

// OWASP "CSV injection": a cell a spreadsheet would read as a formula (or whose leading tab or CR
// it would drop to find one) gets a leading apostrophe, which spreadsheets show as text.
const FORMULA_START = /^[=+\-@\t\r]/;

/** A text cell of csv or tsv output: stripped, and neutralised when it would start a formula. */
export function spreadsheetText(text: string): string {
  const clean = stripControls(text);
  // Tested before stripping too: a leading CR has become a space by then.
  return FORMULA_START.test(text) || FORMULA_START.test(clean) ? `'${clean}` : clean;
}
