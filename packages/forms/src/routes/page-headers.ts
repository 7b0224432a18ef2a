// The Content-Security-Policy of the pages outside /api (docs/forms.md#page-headers): who may
// frame them, and what the inbox may run. Only headers: the pages themselves are the web app's.

/**
 * The inbox holds an admin session: no site may frame it (clickjacking), and it runs scripts
 * from its own origin only: no other site's file, no inline script, no eval, no plugin, no <base>
 * redirecting its relative URLs. The form preview, a srcdoc frame that inherits this policy, loads
 * its fetch shim as a file for that reason (docs/forms.md#page-headers).
 */
export const INBOX_CSP = [
  "script-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The hosted form page (and the thank-you page a plain post lands on) may be framed only by the
 * sites the form lists in `allowedOrigins`, the same sites that may send it answers; by none
 * when it lists none or the form does not exist. The origins were checked to be exact origins
 * when the form was stored; anything else is dropped here rather than written into the header.
 */
export function hostedCsp(allowedOrigins: readonly string[] | undefined): string {
  const sources = (allowedOrigins ?? []).filter((origin) => /^https?:\/\/[^\s;,']+$/.test(origin));
  return `frame-ancestors ${sources.length > 0 ? sources.join(' ') : "'none'"}`;
}
