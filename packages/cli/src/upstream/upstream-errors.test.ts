import { describe, expect, it } from 'vitest';
import { readUpstreamError, retryAfterSeconds } from './upstream-errors.js';

describe('readUpstreamError', () => {
  it('joins the outer and inner messages and keeps the outer code', () => {
    expect(
      readUpstreamError({
        error: {
          code: 'BadArgumentError',
          message: 'The request had some invalid properties',
          innererror: {
            code: 'SemanticError',
            message: 'A semantic error occurred.',
            innererror: { message: "Failed to resolve 'x'" },
          },
        },
      }),
    ).toEqual({
      code: 'BadArgumentError',
      message:
        "The request had some invalid properties: A semantic error occurred.: Failed to resolve 'x'",
    });
    expect(readUpstreamError({ tables: [] })).toBeUndefined();
  });
});

describe('retryAfterSeconds', () => {
  const now = Date.parse('2026-11-21T10:00:00Z');
  it('reads delta-seconds and HTTP dates', () => {
    expect(retryAfterSeconds('5', now)).toBe(5);
    expect(retryAfterSeconds('Sat, 21 Nov 2026 10:00:30 GMT', now)).toBe(30);
    expect(retryAfterSeconds(undefined, now)).toBeUndefined();
    expect(retryAfterSeconds('soon', now)).toBeUndefined();
  });
});
