// Chromium writes its own command line (every flag, the guard proxy's port among them) into the
// `metadata` of every JSON trace, which a client reads back with IO.read: the door refuses
// Browser.getBrowserCommandLine, so it must not let the same text out through a trace
// (docs/sessions.md#traces). The door overwrites the value of `command_line` in IO.read answers
// as they stream past, in place and byte for byte: the frame keeps its length, so nothing of
// Chromium's has to be held back but the few bytes of one escape sequence cut by a read.
//
// What is scanned is the `data` string of an IO.read answer, where the trace's JSON is escaped
// once more: the trace's `"command_line":"…"` reads `\"command_line\":\"…\"`. Every escape
// sequence of the value becomes as many `x` as it has bytes, so the value stays a valid string at
// both levels (`"command_line":"xxxx…"`). Compressed and protobuf traces are refused at
// Tracing.start (cdp-param-judges.ts), so every trace a client can read is this plain JSON.

const KEY = Buffer.from('\\"command_line\\":\\"');
const BACKSLASH = 0x5c;
const QUOTE = 0x22;
const U = 0x75;
const X = 0x78;

// KMP failure table of KEY: where a partial match resumes after a mismatch.
const FAIL = (() => {
  const fail = new Array<number>(KEY.length).fill(0);
  for (let i = 1, k = 0; i < KEY.length; i++) {
    while (k > 0 && KEY[i] !== KEY[k]) k = fail[k - 1] ?? 0;
    if (KEY[i] === KEY[k]) k++;
    fail[i] = k;
  }
  return fail;
})();

/** One IO.read answer's payload, fed in the parts its reads bring; rewritten where it lies. */
export class TraceRedactor {
  private matched = 0;
  private inValue = false;
  /** The trace-level character before was a backslash: this one is escaped. */
  private traceEscape = false;
  /** The start of an escape sequence cut by the end of a read, not yet sent (one or more parts). */
  private pending: Buffer[] = [];

  /**
   * Rewrites `part` in place; returns how many bytes at the end of what was pushed so far must
   * wait for the next part (an escape sequence of the value cut by a read), to go out with it
   * once rewritten. Those bytes stay where they are: the caller holds them back.
   */
  push(part: Buffer): number {
    const views = [...this.pending, part];
    const bytes = views.length === 1 ? part : Buffer.concat(views);
    const held = this.scan(bytes);
    if (views.length > 1) {
      // Rewritten on a copy: back into the reads' own bytes.
      let at = 0;
      for (const view of views) at += bytes.copy(view, 0, at, at + view.length);
    }
    this.pending = [];
    let rest = held;
    for (let v = views.length - 1; v >= 0 && rest > 0; v--) {
      const view = views[v] as Buffer;
      const take = Math.min(rest, view.length);
      this.pending.unshift(view.subarray(view.length - take));
      rest -= take;
    }
    return held;
  }

  /** Rewrites `bytes`; returns the length of a cut escape sequence at its end, else 0. */
  private scan(bytes: Buffer): number {
    let i = 0;
    while (i < bytes.length) {
      const b = bytes[i] ?? 0;
      if (!this.inValue) {
        while (this.matched > 0 && b !== KEY[this.matched])
          this.matched = FAIL[this.matched - 1] ?? 0;
        if (b === KEY[this.matched]) this.matched++;
        if (this.matched === KEY.length) {
          this.inValue = true;
          this.traceEscape = false;
          this.matched = 0;
        }
        i++;
        continue;
      }
      if (b !== BACKSLASH) {
        // A plain character of the value (a byte of one, for UTF-8).
        bytes[i++] = X;
        this.traceEscape = false;
        continue;
      }
      if (i + 1 >= bytes.length) return bytes.length - i;
      const next = bytes[i + 1];
      const length = next === U ? 6 : 2;
      if (i + length > bytes.length) return bytes.length - i;
      if (next === QUOTE && !this.traceEscape) {
        // The trace's closing quote: the value ends here.
        this.inValue = false;
        i += 2;
        continue;
      }
      // `\\` is a backslash of the trace's, which escapes the character after it.
      this.traceEscape = next === BACKSLASH ? !this.traceEscape : false;
      bytes.fill(X, i, i + length);
      i += length;
    }
    return 0;
  }
}
