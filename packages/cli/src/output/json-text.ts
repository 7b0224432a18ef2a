// JSON for stdout (--format Json and Jsonl; docs/cli.md#safety). JSON.stringify escapes C0 but
// writes DEL, the C1 controls (an 8-bit CSI, U+009B, is an escape sequence to some terminals) and
// the line and paragraph separators U+2028/2029 (line breaks to many viewers, and not valid in a
// JavaScript string before ES2019) as they are. Here they become \uXXXX escapes. They can only
// occur inside JSON strings, so replacing them in the serialised text keeps it exact JSON: a
// parser reads the same values.

const UNSAFE_IN_JSON = /[\u007f-\u009f\u2028\u2029]/g;

/** `JSON.stringify(value, null, indent)` with DEL, C1 and U+2028/2029 escaped. */
export function jsonText(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).replace(
    UNSAFE_IN_JSON,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
