import { publicOrigin, type PublicHosts } from '../public-hosts.js';
import type { App } from '../server-context.js';

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => `&#${String(c.charCodeAt(0))};`);

/**
 * GET / (docs/render.md#get-): a small page for whoever opens the address `npm start` prints
 * in a browser: what the service is, where its documents are, and a request to paste. Public,
 * like /healthz, so it shows nothing a token guards and no secret.
 */
export function homeRoutes(app: App, opts: { version: string; publicHosts: PublicHosts }) {
  app.get('/', { config: { access: 'public' }, schema: { hide: true } }, (request, reply) => {
    // The Host header is the client's to choose: trusted only as URLs are, and escaped.
    const base = escapeHtml(publicOrigin(request.raw, opts.publicHosts, request.protocol));
    return reply
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-cache')
      .send(page(base, escapeHtml(opts.version)));
  });
}

function page(base: string, version: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Havn render</title>
<style>
body { font-family: system-ui, sans-serif; max-width: 44rem; margin: 3rem auto; padding: 0 1rem; line-height: 1.5; color: #1f2328; background: #fff; }
code, pre { font-family: ui-monospace, monospace; font-size: 0.9em; }
pre { background: #f6f8fa; border: 1px solid #d0d7de; border-radius: 6px; padding: 0.75rem; white-space: pre-wrap; overflow-wrap: anywhere; }
a { color: #0b57d0; }
@media (prefers-color-scheme: dark) {
  body { color: #e6edf3; background: #0d1117; }
  pre { background: #161b22; border-color: #30363d; }
  a { color: #7cacf8; }
}
</style></head>
<body><main>
<h1>Havn render</h1>
<p>A browser rendering service (version ${version}): screenshots and PDFs of a URL or of HTML you
send, batches of them, and browser sessions you drive over the Chrome DevTools Protocol. It is an
API: every route but this page and <code>/healthz</code> takes the service token as
<code>Authorization: Bearer</code> (<code>npm start</code> keeps it in <code>data/dev-token</code>).</p>
<h2>Documents</h2>
<ul>
<li><a href="${base}/v1/openapi.json">/v1/openapi.json</a>: the API as OpenAPI 3 (with the token)</li>
<li><a href="${base}/healthz">/healthz</a>: health, renders in flight and queued (no token)</li>
<li><a href="${base}/metrics">/metrics</a>: Prometheus metrics (with the token)</li>
</ul>
<h2>Try it</h2>
<p>A screenshot of a page, from the repository root:</p>
<pre><code>curl -X POST ${base}/v1/render \\
  -H "Authorization: Bearer $(cat data/dev-token)" -H 'Content-Type: application/json' \\
  -d '{ "url": "https://example.com", "profile": "desktop" }'</code></pre>
<p>The answer names the stored PNG under <code>artifact.url</code>. Every option is in the
repository's <code>docs/render.md</code>; a walk through both services is in
<code>docs/quickstart.md</code>.</p>
</main></body></html>
`;
}
