// JSON.parse that also knows on which line each value (and each object key) starts, so the
// definition editor can put an error on the line it belongs to. Paths are arrays of keys and
// indexes, as the schema check reports them.

export type JsonPath = (string | number)[];

export class JsonSyntaxError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(message);
  }
}

export interface ParsedJson {
  value: unknown;
  /** The line (1-based) where the value at `path`, or its nearest ancestor, starts. */
  lineOf(path: JsonPath): number;
}

const key = (path: JsonPath) => JSON.stringify(path);
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

export function parseJson(text: string): ParsedJson {
  const lines = new Map<string, number>();
  let i = 0;
  let line = 1;
  const fail = (what: string): never => {
    const found = i < text.length ? `"${text[i] ?? ''}"` : 'the end of the text';
    throw new JsonSyntaxError(`${what}, found ${found}.`, line);
  };
  const ws = () => {
    for (;;) {
      const c = text[i];
      if (c === '\n') line++;
      else if (c !== ' ' && c !== '\t' && c !== '\r') return;
      i++;
    }
  };
  const string = (): string => {
    const start = i;
    i++; // the opening quote
    for (;;) {
      const c = text[i];
      if (c === undefined || c === '\n') fail('A string is not closed: expected "');
      if (c === '\\') i += 2;
      else if (c === '"') break;
      else i++;
    }
    i++;
    try {
      return JSON.parse(text.slice(start, i)) as string;
    } catch {
      return fail('A string has a bad escape or control character');
    }
  };
  const value = (path: JsonPath): unknown => {
    ws();
    if (!lines.has(key(path))) lines.set(key(path), line);
    const c = text[i];
    if (c === '{') {
      i++;
      const obj: Record<string, unknown> = {};
      ws();
      if (text[i] === '}') {
        i++;
        return obj;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail('Expected a key in double quotes');
        const keyLine = line;
        const k = string();
        lines.set(key([...path, k]), keyLine);
        ws();
        if (text[i] !== ':') fail('Expected ":" after the key');
        i++;
        obj[k] = value([...path, k]);
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') {
          i++;
          return obj;
        }
        fail('Expected "," or "}"');
      }
    }
    if (c === '[') {
      i++;
      const arr: unknown[] = [];
      ws();
      if (text[i] === ']') {
        i++;
        return arr;
      }
      for (;;) {
        arr.push(value([...path, arr.length]));
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') {
          i++;
          return arr;
        }
        fail('Expected "," or "]"');
      }
    }
    if (c === '"') return string();
    for (const [word, v] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return v;
      }
    }
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(text);
    if (m) {
      i += m[0].length;
      return Number(m[0]);
    }
    return fail('Expected a value (an object, array, string, number, true, false or null)');
  };
  const result = value([]);
  ws();
  if (i < text.length) fail('Expected the end of the text after the value');
  return {
    value: result,
    lineOf(path) {
      for (let n = path.length; n >= 0; n--) {
        const found = lines.get(key(path.slice(0, n)));
        if (found !== undefined) return found;
      }
      return 1;
    },
  };
}
