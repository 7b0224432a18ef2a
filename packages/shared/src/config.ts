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
  const present = Object.fromEntries(
    Object.keys(shape).map((key) => [key, env[key] === '' ? undefined : env[key]]),
  );
  const result = z.object(shape).safeParse(present);
  if (!result.success) {
    throw new ConfigError(
      result.error.issues.map((issue) => {
        const name = issue.path.join('.');
        return `${name}: ${issue.message} (got ${JSON.stringify(present[name] ?? null)})`;
      }),
    );
  }
  return Object.freeze(result.data);
}

/** An integer variable with a default and inclusive bounds. */
export function envInt(defaultValue: number, min = 0, max = Number.MAX_SAFE_INTEGER) {
  return z
    .string()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max))
    .default(defaultValue);
}

/** A switch: `1` or `true` turns it on, `0` or `false` (or unset) leaves it off. */
export function envFlag() {
  return z
    .enum(['1', '0', 'true', 'false'], { message: 'must be 1 or 0' })
    .transform((v) => v === '1' || v === 'true')
    .default(false);
}

/** A comma-separated list, trimmed, empty entries dropped. */
export function envList() {
  return z
    .string()
    .transform((v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .default([]);
}

/** An optional http(s) URL without a trailing slash. */
export function envUrl() {
  return z
    .url({ protocol: /^https?$/, message: 'must be an http(s) URL' })
    .transform((v) => v.replace(/\/+$/, ''))
    .optional();
}

/** An optional string. */
export function envString() {
  return z.string().optional();
}
