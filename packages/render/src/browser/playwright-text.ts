// Playwright's error text as a person can act on it. Its messages open with the call
// (`page.goto: `) and go on with a call log over many lines; an answer keeps only the first line.

/** The first line of a Playwright error, without the name of the call that failed. */
export function playwrightReason(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return (text.split('\n', 1)[0] ?? text).replace(/^[\w.]+: /, '');
}

/** Why a navigation failed: Chromium's `net::` code when there is one, else the first line. */
export function navigationReason(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return /net::ERR_[A-Z_0-9]+/.exec(text)?.[0] ?? playwrightReason(err);
}
