import { describe, expect, it } from 'vitest';
import { jwtWithExpiry } from '../test-support/run-havn.js';
import { jwtExpiry } from './jwt-expiry.js';

describe('jwtExpiry', () => {
  it('reads exp of a JWT as epoch milliseconds', () => {
    expect(jwtExpiry(jwtWithExpiry(1_800_000_000))).toBe(1_800_000_000_000);
  });

  it('is null for an opaque token or a JWT without exp', () => {
    expect(jwtExpiry('opaque-token')).toBeNull();
    expect(jwtExpiry('a.b.c')).toBeNull();
    expect(jwtExpiry(`x.${Buffer.from('{"aud":"a"}').toString('base64url')}.y`)).toBeNull();
  });
});
