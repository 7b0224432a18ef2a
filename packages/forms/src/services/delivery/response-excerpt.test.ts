import { expect, test } from 'vitest';
import { RESPONSE_EXCERPT_BYTES, responseExcerpt } from './response-excerpt.js';

test('an empty answer has no excerpt; a short one is kept whole', () => {
  expect(responseExcerpt(Buffer.alloc(0))).toBeNull();
  expect(responseExcerpt(Buffer.from('{"ok":true}\n'))).toBe('{"ok":true}\n');
});

test('only the first 512 bytes are kept, and a character cut in two there is left out', () => {
  const head = 'a'.repeat(RESPONSE_EXCERPT_BYTES - 1);
  // "é" is two bytes: its first lands on byte 512, its second beyond the bound.
  const text = responseExcerpt(Buffer.from(`${head}é and more`));
  expect(text).toBe(head);
  // Exactly at the bound, nothing is held back.
  expect(responseExcerpt(Buffer.from(`${'a'.repeat(RESPONSE_EXCERPT_BYTES - 2)}é`))).toBe(
    `${'a'.repeat(RESPONSE_EXCERPT_BYTES - 2)}é`,
  );
});

test('bad bytes become U+FFFD and control and direction characters visible escapes', () => {
  const bytes = Buffer.concat([
    Buffer.from('ok\t\r\n'),
    Buffer.from([0x00, 0x07, 0x1b, 0x7f, 0xc2, 0x85, 0xff]),
    Buffer.from('\u202e\u2066x'),
  ]);
  expect(responseExcerpt(bytes)).toBe(
    'ok\t\r\n\\u0000\\u0007\\u001b\\u007f\\u0085\ufffd\\u202e\\u2066x',
  );
});
