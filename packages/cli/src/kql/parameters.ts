// `--param name=value` of `havn otel query`: each becomes a KQL `let name = 'value';` statement
// before the query, the value through the one string escape every user value takes
// (string-literal.ts). docs/cli.md#raw-kql-havn-otel-query.
import { UsageError } from '../errors.js';
import { kqlString } from './string-literal.js';

// A plain KQL identifier; anything else would need ['bracket'] quoting, which a name never needs.
const NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/** The `let` statements of `--param` values, one per line, in the order given. */
export function letStatements(params: readonly string[]): string[] {
  const seen = new Set<string>();
  return params.map((param) => {
    const eq = param.indexOf('=');
    const name = eq === -1 ? param : param.slice(0, eq);
    if (eq === -1 || !NAME.test(name)) {
      throw new UsageError(
        `--param must be name=value with a name of letters, digits and '_' (not starting with a digit); got '${param}'.`,
      );
    }
    if (seen.has(name)) throw new UsageError(`--param ${name} is given twice.`);
    seen.add(name);
    return `let ${name} = ${kqlString(param.slice(eq + 1), `--param ${name}`)};`;
  });
}
