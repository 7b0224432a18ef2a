// Runs a plain, well-formed `havn otel <command> ...` without loading commander, whose start-up
// cost alone is larger than the rest of a query (bench/cli.ts). Anything it is not sure about
// (help, `--`, combined or unknown flags, a missing value, a value that looks like a flag, an extra
// argument) returns false, and commander handles the invocation in full, so behaviour and error
// messages stay commander's.
import { readFileSync } from 'node:fs';
import { parseFlags } from './commands/otel/command-spec.js';
import { OTEL_COMMANDS } from './commands/otel/index.js';
import type { CliContext } from './context.js';

export async function tryFastPath(argv: readonly string[], ctx: CliContext): Promise<boolean> {
  if (argv[0] !== 'otel') return false;
  const spec = OTEL_COMMANDS.find((c) => c.name === argv[1]);
  if (!spec) return false;
  const flags = spec.options.map((o) => ({
    ...parseFlags(o.flags),
    default: o.default,
    repeatable: o.repeatable === true,
  }));
  const values: Record<string, string | boolean | string[] | undefined> = {};
  for (const f of flags) if (f.default !== undefined) values[f.key] = f.default;
  let positional: string | undefined;
  const rest = argv.slice(2);
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i] ?? '';
    if (arg.startsWith('-') && arg !== '-') {
      const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
      const name = eq === -1 ? arg : arg.slice(0, eq);
      const flag = flags.find((f) => f.long === name || f.short === name);
      if (!flag) return false;
      if (!flag.takesValue) {
        if (eq !== -1) return false;
        values[flag.key] = true;
        continue;
      }
      const value = eq === -1 ? rest[++i] : arg.slice(eq + 1);
      if (value === undefined || (eq === -1 && value.startsWith('-'))) return false;
      const list = values[flag.key];
      values[flag.key] = flag.repeatable ? [...(Array.isArray(list) ? list : []), value] : value;
    } else {
      if (!spec.argument || positional !== undefined) return false;
      positional = arg;
    }
  }
  // A required argument that is missing: commander says so.
  if (positional === undefined && spec.argument?.name.startsWith('<') === true) return false;
  await spec.run(ctx, positional, values);
  return true;
}

/**
 * `havn <command…> --help` (or `-h`) from dist/help.json, the help build.mjs rendered with
 * commander (help-texts.ts), without loading commander. Anything else, or no file (running from
 * source), returns false and commander prints it.
 */
export function tryCachedHelp(argv: readonly string[], ctx: CliContext): boolean {
  const last = argv[argv.length - 1];
  if (last !== '--help' && last !== '-h') return false;
  let texts: unknown;
  try {
    texts = JSON.parse(readFileSync(new URL('./help.json', import.meta.url), 'utf8'));
  } catch {
    return false;
  }
  const key = argv.slice(0, -1).join(' ');
  if (typeof texts !== 'object' || texts === null || !Object.hasOwn(texts, key)) return false;
  const text = (texts as Record<string, unknown>)[key];
  if (typeof text !== 'string') return false;
  ctx.stdout.write(text);
  return true;
}
