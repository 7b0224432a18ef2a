// The otel commands as data: name, argument, options, examples and the function that runs them.
// program.ts turns a spec into a commander command (help, errors, every unusual form of input);
// fast-path.ts runs the common well-formed invocation without loading commander at all, which
// keeps a query cheap to start (docs/cli.md#start-up-time). One spec, so the two cannot drift.
import type { CliContext } from '../../context.js';

export interface OptionSpec {
  /** commander syntax: `--since <DURATION>`, `-v, --verbose`, `--has-error`. */
  readonly flags: string;
  readonly description: string;
  readonly default?: string;
  /** May be given many times (`--param a=1 --param b=2`); the values come as a list. */
  readonly repeatable?: boolean;
}

export type OptionValues = Readonly<
  Record<string, string | boolean | readonly string[] | undefined>
>;

export interface OtelCommandSpec {
  readonly name: string;
  readonly description: string;
  /** `[NAME]` is optional, `<NAME>` required (commander syntax). */
  readonly argument?: { readonly name: string; readonly description: string };
  readonly options: readonly OptionSpec[];
  readonly examples: string;
  run(ctx: CliContext, app: string | undefined, options: OptionValues): Promise<void>;
}

export interface ParsedFlags {
  readonly short?: string;
  readonly long: string;
  readonly takesValue: boolean;
  /** The property name commander gives the option: `--operation-id` → `operationId`. */
  readonly key: string;
}

export function parseFlags(flags: string): ParsedFlags {
  const match = /^(?:(-\w),\s*)?(--[\w-]+)(\s+<[^>]+>)?$/.exec(flags);
  if (!match?.[2]) throw new Error(`bad option flags: ${flags}`);
  const long = match[2];
  return {
    ...(match[1] === undefined ? {} : { short: match[1] }),
    long,
    takesValue: match[3] !== undefined,
    key: long.slice(2).replace(/-(\w)/g, (_, c: string) => c.toUpperCase()),
  };
}

/** The value of a string option (commander has applied the default already). */
export function stringOption(options: OptionValues, key: string): string | undefined {
  const value = options[key];
  return typeof value === 'string' ? value : undefined;
}

/** The values of a repeatable option, in the order given. */
export function listOption(options: OptionValues, key: string): readonly string[] {
  const value = options[key];
  return Array.isArray(value) ? (value as readonly string[]) : [];
}
