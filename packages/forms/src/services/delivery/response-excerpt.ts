// docs/forms.md#webhooks: an attempt keeps the first bytes of the receiver's answer for the
// delivery log. Those bytes come from whoever runs the receiver, so they are bounded before they
// are read, decoded without trusting them and made into text that stores and shows as text.

/** How many bytes of an answer are kept. */
export const RESPONSE_EXCERPT_BYTES = 512;

// C0 and C1 controls but tab, LF and CR; DEL; the bidirectional overrides and isolates, which could
// make the shown text read differently from what was sent; U+FFFE/U+FFFF noncharacters.
const unsafe =
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ufffe\uffff]/g;

const escape = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * The first `RESPONSE_EXCERPT_BYTES` of an answer as text: UTF-8 decoded with U+FFFD for bad
 * sequences (a sequence cut at the bound is left out), and every control character (NUL included,
 * which PostgreSQL text refuses) written as a visible `\uXXXX` escape. Null for an empty answer.
 */
export function responseExcerpt(bytes: Buffer): string | null {
  if (bytes.byteLength === 0) return null;
  const head = bytes.subarray(0, RESPONSE_EXCERPT_BYTES);
  // `stream: true` holds back a multi-byte sequence the bound cut in two instead of showing U+FFFD.
  const text = new TextDecoder('utf-8', { fatal: false }).decode(head, {
    stream: bytes.byteLength > RESPONSE_EXCERPT_BYTES,
  });
  return text.replace(unsafe, escape);
}
