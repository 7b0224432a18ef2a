import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sha256 } from './sha256.js';

describe('sha256 (the fallback for pages without SubtleCrypto)', () => {
  it('matches Node’s SHA-256 for every length up to three blocks', () => {
    for (let n = 0; n <= 200; n++) {
      const data = randomBytes(n);
      const expected = createHash('sha256').update(data).digest('hex');
      expect(Buffer.from(sha256(new Uint8Array(data))).toString('hex')).toBe(expected);
    }
  });
});
