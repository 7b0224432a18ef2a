import { formsErrors } from '../errors.js';

// A date (a day from its UTC midnight) or a date-time; a date-time without an offset is UTC.
const iso8601 = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})?)?$/;

/** One bound of the range as the store compares it: the stored `receivedAt` form. */
function bound(name: 'since' | 'until', value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const m = iso8601.exec(value);
  const withZone = m && value.includes('T') && m[1] === undefined ? `${value}Z` : value;
  const at = m ? Date.parse(withZone) : NaN;
  if (Number.isNaN(at)) {
    throw formsErrors.error('EXPORT_DATE_INVALID', { name, value });
  }
  return new Date(at).toISOString();
}

/**
 * The export's time range (docs/forms.md#submissions): `since` included, `until` excluded, so
 * `since=2026-01-01&until=2026-02-01` is January.
 */
export function exportRange(
  since: string | undefined,
  until: string | undefined,
): { since?: string; until?: string } {
  const range = { since: bound('since', since), until: bound('until', until) };
  if (range.since !== undefined && range.until !== undefined && range.since >= range.until) {
    throw formsErrors.error('EXPORT_RANGE_INVALID', { since: since ?? '', until: until ?? '' });
  }
  return {
    ...(range.since !== undefined ? { since: range.since } : {}),
    ...(range.until !== undefined ? { until: range.until } : {}),
  };
}
