// A third-party website on its own loopback origin that embeds the runtime with the one tag of
// docs/definition-format.md ("Embedding"), plus whatever host-page markup and CSS a test needs.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Site {
  /** The site's origin, e.g. http://localhost:41234. */
  origin: string;
  /** Serves `html` at `path` on the site. */
  page(path: string, html: string): string;
  close(): Promise<void>;
}

export async function startSite(hostname: 'localhost' | '127.0.0.1' = 'localhost'): Promise<Site> {
  const pages = new Map<string, string>();
  const server: Server = createServer((req, res) => {
    const html = pages.get(new URL(req.url ?? '/', 'http://x').pathname);
    res.writeHead(html === undefined ? 404 : 200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(html ?? 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://${hostname}:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    page(path, html) {
      pages.set(path, html);
      return `${origin}${path}`;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}

/** A host page with the embed tag for `definitionUrl`, loaded from `runtimeUrl`. */
export function embedPage(runtimeUrl: string, definitionUrl: string, head = '', body = ''): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Acme</title>
<meta name="viewport" content="width=device-width, initial-scale=1">${head}</head>
<body><main><h1>Acme Ltd</h1>${body}
<script async src="${runtimeUrl}" data-form="${definitionUrl}"></script></main></body></html>`;
}
