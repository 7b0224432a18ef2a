import { describe, expect, it } from 'vitest';
import { bearerToken, randomToken, sha256Hex, tokensEqual } from './token.js';

describe('tokens', () => {
  it('compares exactly, whatever the lengths', () => {
    expect(tokensEqual('s3cret', 's3cret')).toBe(true);
    expect(tokensEqual('s3cret', 's3cres')).toBe(false);
    expect(tokensEqual('s3cre', 's3cret')).toBe(false);
    expect(tokensEqual('', 's3cret')).toBe(false);
  });

  it('reads bearer tokens', () => {
    expect(bearerToken('Bearer abc.def')).toBe('abc.def');
    expect(bearerToken('bearer   abc')).toBe('abc');
    expect(bearerToken('Basic abc')).toBeUndefined();
    expect(bearerToken(undefined)).toBeUndefined();
  });

  it('mints url-safe random tokens of the asked size', () => {
    const t = randomToken(24);
    expect(Buffer.from(t, 'base64url')).toHaveLength(24);
    expect(t).not.toBe(randomToken(24));
    expect(sha256Hex('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
  });
});
