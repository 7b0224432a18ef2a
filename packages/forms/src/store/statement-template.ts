import type { CompiledQuery } from 'kysely';

/** A statement Kysely compiled once, bound to each row's values without compiling again. */
export interface StatementTemplate<K extends string> {
  readonly sql: string;
  /** Where each parameter comes from: plain data, so the template can cross to a thread. */
  readonly slots: readonly TemplateSlot[];
  /** The query Kysely compiled (with the markers as parameters): run it with `bind`'s. */
  readonly compiled: CompiledQuery;
  /**
   * The statement's parameters for these values, in the compiled statement's order; an absent
   * (optional, nullable) value binds as NULL.
   */
  bind(values: Readonly<Partial<Record<K, unknown>>>): unknown[];
}

/** One parameter of a compiled template: a named value, or a constant the builder compiled in. */
export type TemplateSlot = { key: string } | { value: unknown };

/** The parameters of `slots` for these values (see StatementTemplate.bind). */
export function bindSlots(
  slots: readonly TemplateSlot[],
  values: Readonly<Record<string, unknown>>,
): unknown[] {
  return slots.map((s) => ('key' in s ? (values[s.key] ?? null) : s.value));
}

const marker = '\u0000havn-template-parameter:';

/**
 * Compiles `build` once with a marker in place of every named value and records where each marker
 * landed among the parameters. Compiling a multi-row insert of a full group commit cost as much
 * main-thread time as serving the requests; the SQL text stays Kysely's, so it keeps working for
 * every dialect, and constants the builder adds (`attempts + 1`) keep their compiled value.
 */
export function compileTemplate<K extends string>(
  keys: readonly K[],
  build: (values: Record<K, unknown>) => CompiledQuery,
): StatementTemplate<K> {
  const placeholders = Object.fromEntries(keys.map((k) => [k, `${marker}${k}`])) as Record<
    K,
    unknown
  >;
  const compiled = build(placeholders);
  const slots = compiled.parameters.map((p): { key: K } | { value: unknown } =>
    typeof p === 'string' && p.startsWith(marker)
      ? { key: p.slice(marker.length) as K }
      : { value: p },
  );
  const missing = keys.filter((k) => !slots.some((s) => 'key' in s && s.key === k));
  if (missing.length > 0) {
    // A value the builder turned into SQL text instead of a parameter would be bound wrongly.
    throw new Error(`statement template: ${missing.join(', ')} did not become parameters`);
  }
  return {
    sql: compiled.sql,
    slots,
    compiled,
    bind: (values) => bindSlots(slots, values),
  };
}
