import { HttpError } from './http-errors.js';

// Errors by code (docs/errors.md), in the way of Fastify's own lib/errors.js: each package keeps
// one catalogue of the errors it answers, each entry a status and a message template whose
// `{slots}` the thrower fills. Code reads `err.code`, never the message; the message stays the
// text the client reads.

export interface ErrorEntry {
  status: number;
  /** The client's text, with `{name}` slots. */
  message: string;
}

/** The slot names of a message template. */
type Slots<T extends string> = T extends `${string}{${infer Name}}${infer Rest}`
  ? Name | Slots<Rest>
  : never;

/** What an entry's template needs to be filled. */
export type SlotValues<T extends string> = [Slots<T>] extends [never]
  ? []
  : [values: Record<Slots<T>, string | number>];

/** An HttpError with its catalogue code. */
export interface CodedError extends HttpError {
  readonly code: string;
}

export interface Catalogue<C extends Record<string, ErrorEntry>> {
  /** The error `code` answers, its template filled with `values`. */
  error<K extends keyof C & string>(code: K, ...values: SlotValues<C[K]['message']>): CodedError;
  /** Whether `err` is the catalogue's error `code`. */
  is(err: unknown, code: keyof C & string): boolean;
  /** The entry name of `err` (`FORM_NOT_FOUND`) when it is one of the catalogue's errors. */
  nameOf(err: unknown): (keyof C & string) | undefined;
  /** Every entry with its full code (`<PREFIX>_<NAME>`), for the generated docs. */
  readonly entries: readonly (ErrorEntry & { code: string })[];
}

/** The catalogue of one package; full codes are `<prefix>_<name>`, as `FORMS_FORM_NOT_FOUND`. */
export function errorCatalogue<const C extends Record<string, ErrorEntry>>(
  prefix: string,
  catalogue: C,
): Catalogue<C> {
  const full = (name: string) => `${prefix}_${name}`;
  return {
    error(code, ...values) {
      const entry = catalogue[code];
      if (entry === undefined) throw new Error(`no error ${code} in the ${prefix} catalogue`);
      const filled = values[0] as Record<string, string | number> | undefined;
      const message = entry.message.replace(/\{(\w+)\}/g, (_, name: string) =>
        String(filled?.[name] ?? ''),
      );
      return new HttpError(entry.status, message, full(code)) as CodedError;
    },
    is: (err, code) => err instanceof HttpError && err.code === full(code),
    nameOf(err) {
      if (!(err instanceof HttpError) || err.code === undefined) return undefined;
      const name = err.code.slice(prefix.length + 1);
      return full(name) === err.code && Object.hasOwn(catalogue, name) ? name : undefined;
    },
    entries: Object.entries(catalogue).map(([name, entry]) => ({ ...entry, code: full(name) })),
  };
}
