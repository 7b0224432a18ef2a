import http from 'node:http';
import type { AddressInfo } from 'node:net';

// A local web server for tests, on loopback port 0. Routes are plain handlers; `hits` counts
// requests per path so a test can prove what the browser fetched.

export type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

export interface FixtureServer {
  port: number;
  /** `http://localhost:<port>` (reach it through ALLOWED_HOSTS=localhost). */
  origin: string;
  hits: Map<string, number>;
  route(path: string, handler: Handler): void;
  close(): Promise<void>;
}

export function html(body: string, head = ''): Handler {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html><head>${head}</head><body>${body}</body></html>`);
  };
}

export async function startFixtureServer(
  routes: Record<string, Handler> = {},
): Promise<FixtureServer> {
  const table = new Map(Object.entries(routes));
  const hits = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const handler = table.get(path);
    if (handler) handler(req, res);
    else {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    origin: `http://localhost:${port}`,
    hits,
    route: (path, handler) => table.set(path, handler),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}

/** A server that must never be reached: it counts every TCP connection made to it. */
export interface Canary {
  port: number;
  /** Connections accepted so far (any protocol). */
  connections(): number;
  close(): Promise<void>;
}

export async function startCanary(): Promise<Canary> {
  let count = 0;
  const server = http.createServer((_req, res) => {
    res.end('canary reached');
  });
  server.on('connection', () => {
    count++;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    connections: () => count,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}
