import { describe, expect, it } from 'vitest';
import { parseSeverity, severityName } from './severity.js';
import { SPANS_WINDOW, parseSince } from './since.js';

describe('parseSince', () => {
  it.each([
    ['1h', '1h', 'PT1H', 'last 1 hour'],
    ['30m', '30m', 'PT30M', 'last 30 minutes'],
    ['7d', '7d', 'P7D', 'last 7 days'],
  ])('%s', (value, kql, iso, text) => {
    expect(parseSince(value)).toMatchObject({ kql, iso, text });
  });

  it.each(['', '1', 'h', '1w', '1.5h', '-1h', '0m', '1 h'])('refuses %j', (value) => {
    expect(() => parseSince(value)).toThrow(/--since must be a positive whole number/);
  });

  it('spans use a fixed 24 hours', () => {
    expect(SPANS_WINDOW).toMatchObject({ kql: '24h', iso: 'PT24H' });
  });
});

describe('severity', () => {
  it('maps names to 0-decisions §3 levels and back', () => {
    expect(
      ['Trace', 'Verbose', 'info', 'Information', 'WARNING', 'error', 'Critical'].map(
        parseSeverity,
      ),
    ).toEqual([0, 0, 1, 1, 2, 3, 4]);
    expect([0, 1, 2, 3, 4, 7, null].map(severityName)).toEqual([
      'Verbose',
      'Information',
      'Warning',
      'Error',
      'Critical',
      '7',
      '',
    ]);
  });
});
