import { describe, expect, it } from 'vitest';
import { parseSeverity, severityName } from './severity.js';
import { SPANS_WINDOW, parseInstant, parseSince, parseWindow, windowBounds } from './since.js';

describe('parseSince', () => {
  it.each([
    ['1h', '1h', 'PT1H', 'last 1 hour'],
    ['30m', '30m', 'PT30M', 'last 30 minutes'],
    ['7d', '7d', 'P7D', 'last 7 days'],
  ])('%s', (value, ago, iso, text) => {
    expect(parseSince(value)).toMatchObject({ iso, text });
    expect(parseSince(value).where('timestamp')).toBe(`timestamp > ago(${ago})`);
    expect(parseSince(value).where('TimeGenerated')).toBe(`TimeGenerated > ago(${ago})`);
  });

  it.each(['', '1', 'h', '1w', '1.5h', '-1h', '0m', '1 h'])('refuses %j', (value) => {
    expect(() => parseSince(value)).toThrow(/--since must be a positive whole number/);
  });

  it('spans use a fixed 24 hours', () => {
    expect(SPANS_WINDOW).toMatchObject({ iso: 'PT24H' });
    expect(SPANS_WINDOW.where('timestamp')).toBe('timestamp > ago(24h)');
  });
});

const NOW = Date.parse('2026-11-21T12:00:00Z');

describe('parseInstant', () => {
  it.each([
    ['2026-11-21T10:00:00Z', '2026-11-21T10:00:00.000Z'],
    ['2026-11-21T10:00:00.1234567Z', '2026-11-21T10:00:00.123Z'],
    ['2026-11-21T10:00', '2026-11-21T10:00:00.000Z'],
    ['2026-11-21 10:00:30', '2026-11-21T10:00:30.000Z'],
    ['2026-11-21', '2026-11-21T00:00:00.000Z'],
    ['2026-11-21T10:00:00+01:00', '2026-11-21T09:00:00.000Z'],
    ['now', '2026-11-21T12:00:00.000Z'],
    ['now-2h', '2026-11-21T10:00:00.000Z'],
    ['30m', '2026-11-21T11:30:00.000Z'],
    ['1d', '2026-11-20T12:00:00.000Z'],
  ])('%s is %s', (value, iso) => {
    expect(new Date(parseInstant(value, '--from', NOW)).toISOString()).toBe(iso);
  });

  it.each(['yesterday', '2026-13-01', '2026-02-30', '10:00', 'now+1h', '1w', ''])(
    'refuses %j naming the forms',
    (value) => {
      expect(() => parseInstant(value, '--to', NOW)).toThrow(
        /--to must be an ISO 8601 time .* or relative \(now, now-2h, 30m\)/,
      );
    },
  );
});

describe('parseWindow', () => {
  it('--since alone ends now; nothing given is the default', () => {
    expect(parseWindow({}, NOW).iso).toBe('PT1H');
    expect(parseWindow({ since: '6h' }, NOW).where('timestamp')).toBe('timestamp > ago(6h)');
  });

  it('--from/--to: a half-open absolute range, sent as an ISO 8601 interval', () => {
    const w = parseWindow({ from: '2026-11-21T10:00:00Z', to: 'now-1h' }, NOW);
    expect(w.where('timestamp')).toBe(
      'timestamp >= datetime(2026-11-21T10:00:00.000Z) and timestamp < datetime(2026-11-21T11:00:00.000Z)',
    );
    expect(w.iso).toBe('2026-11-21T10:00:00.000Z/2026-11-21T11:00:00.000Z');
    expect(windowBounds(w, NOW + 5000)).toEqual({
      from: '2026-11-21T10:00:00.000Z',
      to: '2026-11-21T11:00:00.000Z',
    });
  });

  it('--to with --since (or alone) ends the window there', () => {
    expect(parseWindow({ since: '2h', to: '2026-11-21T06:00Z' }, NOW).iso).toBe(
      '2026-11-21T04:00:00.000Z/2026-11-21T06:00:00.000Z',
    );
    expect(parseWindow({ to: '1h' }, NOW).iso).toBe(
      '2026-11-21T10:00:00.000Z/2026-11-21T11:00:00.000Z',
    );
  });

  it('refuses --since with --from, and an empty or reversed range', () => {
    expect(() => parseWindow({ since: '1h', from: '2h' }, NOW)).toThrow(
      'Give --since or --from, not both.',
    );
    expect(() => parseWindow({ from: '1h', to: '2h' }, NOW)).toThrow(/--from must be before --to/);
    expect(() => parseWindow({ from: 'now' }, NOW)).toThrow(/--from must be before --to/);
  });
});

describe('severity', () => {
  it('maps names to levels and back', () => {
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
