import { isIP } from 'node:net';
import { z } from 'zod';

/** A configuration that failed validation; `problems` names every bad variable. */
export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`invalid configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Parses `env` with a schema whose keys are variable names, reporting every bad variable at once
 * (not just the first), and returns the result frozen. Empty strings count as unset.
 */
export function parseEnv<S extends z.ZodRawShape>(
  shape: S,
  env: Env,
): Readonly<z.infer<z.ZodObject<S>>> {
  const { values, problems } = collectEnv(shape, env);
  if (values === undefined) throw new ConfigError(problems);
  return values;
}

/**
 * Like parseEnv, but returns the problems instead of throwing, so that a service can add its own
 * checks of several variables and still report everything in one message. `values` is undefined
 * when any variable is bad. Each problem reads "NAME must be … (got "…")", one per variable.
 */
export function collectEnv<S extends z.ZodRawShape>(
  shape: S,
  env: Env,
): { values: Readonly<z.infer<z.ZodObject<S>>> | undefined; problems: string[] } {
  const present = Object.fromEntries(
    Object.keys(shape).map((key) => [key, env[key] === '' ? undefined : env[key]]),
  );
  const result = z.object(shape).safeParse(present);
  if (result.success) return { values: Object.freeze(result.data), problems: [] };
  const byName = new Map<string, string>();
  for (const issue of result.error.issues) {
    const name = issue.path.join('.');
    if (byName.has(name)) continue; // the first rule a value breaks is the one worth reading
    byName.set(name, `${name} ${issue.message} (got ${JSON.stringify(present[name] ?? null)})`);
  }
  return { values: undefined, problems: [...byName.values()] };
}

/** An integer variable with a default and inclusive bounds, refused in plain words. */
export function envInt(defaultValue: number, min = 0, max = Number.MAX_SAFE_INTEGER) {
  const range = max >= Number.MAX_SAFE_INTEGER ? `${min} or more` : `from ${min} to ${max}`;
  return z
    .string()
    .regex(/^\d+$/, `must be a whole number ${range}`)
    .transform(Number)
    .pipe(
      z
        .number()
        .int(`must be a whole number ${range}`)
        .min(min, `must be ${min} or more`)
        .max(max, `must be ${range}`),
    )
    .default(defaultValue);
}

/** A switch: `1` or `true` turns it on, `0` or `false` (or unset) leaves it off. */
export function envFlag() {
  return z
    .enum(['1', '0', 'true', 'false'], { message: 'must be 1 or 0' })
    .transform((v) => v === '1' || v === 'true')
    .default(false);
}

const commaList = z.string().transform((v) =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
);

/** A comma-separated list, trimmed, empty entries dropped. */
export function envList() {
  return commaList.default([]);
}

/**
 * A comma-separated list of IP addresses and CIDR ranges (`10.0.0.0/8`, `::1`), or the names
 * `loopback`, `linklocal` and `uniquelocal`: what Fastify's `trustProxy` accepts. Checked here,
 * because Fastify throws a TypeError on the first entry it cannot read.
 */
export function envAddressList() {
  return commaList
    .refine(
      (entries) => entries.every(isAddressOrRange),
      'must list IP addresses or CIDR ranges such as 10.0.0.0/8, separated by commas',
    )
    .default([]);
}

const namedRanges = new Set(['loopback', 'linklocal', 'uniquelocal']);

function isAddressOrRange(entry: string): boolean {
  if (namedRanges.has(entry)) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/** An optional http(s) URL without a trailing slash. */
export function envUrl() {
  return z
    .url({ protocol: /^https?$/, message: 'must be an http(s) URL' })
    .transform((v) => v.replace(/\/+$/, ''))
    .optional();
}

/** One of `values`, with a default. */
export function envOneOf<const V extends readonly [string, ...string[]]>(
  values: V,
  defaultValue: V[number],
) {
  return z.enum(values, { message: `must be one of ${values.join(', ')}` }).default(defaultValue);
}

/** A string matching `pattern` (`rule` says how in words, "must start with …"), with a default. */
export function envMatching(pattern: RegExp, rule: string, defaultValue: string) {
  return z.string().regex(pattern, rule).default(defaultValue);
}

/** An optional string. */
export function envString() {
  return z.string().optional();
}
