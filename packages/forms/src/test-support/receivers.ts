import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** Status codes to answer, in order; the last one repeats. */
  statuses: number[];
  headers: Record<string, string>;
  /** Bodies to answer with, in order (the last one repeats); empty: `ok` or `receiver says no`. */
  bodies: (string | Buffer)[];
  /** How long to hold each request before answering (a slow receiver). */
  delayMs: number;
  /**
   * Holds every request from now on without an answer until the returned function is called,
   * which answers them all (an attempt kept in flight for as long as a test needs).
   */
  hold(): () => void;
  close(): Promise<void>;
}

/** A webhook (or push service) receiver on loopback that records every request. */
export async function startReceiver(port = 0, statuses: number[] = [200]): Promise<Receiver> {
  const received: Received[] = [];
  let held: Promise<void> | undefined;
  const r: Omit<Receiver, 'url' | 'port' | 'close'> = {
    received,
    statuses,
    headers: {},
    bodies: [],
    delayMs: 0,
    hold: () => {
      let release = () => {};
      held = new Promise((resolve) => (release = resolve));
      return () => {
        held = undefined;
        release();
      };
    },
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) });
      const status = r.statuses.length > 1 ? r.statuses.shift()! : (r.statuses[0] ?? 200);
      const body = r.bodies.length > 1 ? r.bodies.shift()! : r.bodies[0];
      const answer = () =>
        res.writeHead(status, r.headers).end(body ?? (status >= 400 ? 'receiver says no' : 'ok'));
      if (held) void held.then(answer);
      else if (r.delayMs > 0) setTimeout(answer, r.delayMs);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const actual = (server.address() as AddressInfo).port;
  return Object.assign(r, {
    url: `http://127.0.0.1:${String(actual)}`,
    port: actual,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  });
}

/** Polls `check` until it returns a value other than undefined; `what` names it on a timeout. */
export async function waitFor<T>(
  check: () => Promise<T | undefined> | T | undefined,
  ms = 15_000,
  what = '',
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting${what ? ` for ${what}` : ''}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
