// Every user-supplied value enters KQL through here, as a single-quoted string literal with
// backslash escapes (https://learn.microsoft.com/kusto/query/scalar-data-types/string), so a
// value with quotes or backslashes can never change the query's shape (docs/cli.md#the-query-sent).
import { UsageError } from '../errors.js';

/** `value` as a KQL string literal. `option` names the flag in the error for a bad value. */
export function kqlString(value: string, option: string): string {
  // Control characters have no business in an app name or operation id; refusing them keeps the
  // escaping to the two characters KQL treats specially inside single quotes.
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(value)) {
    throw new UsageError(`${option} must not contain control characters.`);
  }
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}
