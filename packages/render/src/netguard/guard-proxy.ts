import http from 'node:http';
import type { LookupAddress } from 'node:dns';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { checkHost, type HostPolicy, type Logger } from '@havn/shared';

// docs/render.md#private-network-policy: enforcement sits in a forward proxy that every
// browser is launched behind, so that redirect hops, subresources, in-page fetches, WebSockets and
// everything a CDP client drives are judged like the first URL. For each request the proxy
// resolves the host once, classifies every address (checkHost), and connects to a checked address
// itself (a pinned lookup), so a DNS answer that changes between check and connect (rebinding) is
// never used. Plain HTTP is forwarded (absolute-form requests); everything else arrives as CONNECT.
//
// Attribution: each one-shot render gets a channel of its own, a listener on its own loopback port
// that the render's browser context is pointed at (per-context proxy), so a refusal is known to
// belong to that render without credentials or request interception.

/** One refused destination. */
export interface Refusal {
  host: string;
  address: string;
  range: string;
  message: string;
}

/** A destination the proxy could not reach (connection refused, unresolvable, ...). */
export interface ProxyFailure {
  /** The absolute URL for plain HTTP, `host:port` for a CONNECT tunnel. */
  target: string;
  /** Why, e.g. `connection refused (ECONNREFUSED)` or `cannot resolve x: ENOTFOUND`. */
  reason: string;
}

/** A proxy listener; `url` is what a browser (or a context) is pointed at. */
export interface ProxyChannel {
  readonly url: string;
  /** Refusals seen on this channel, oldest first. */
  readonly refusals: readonly Refusal[];
  /** Upstream failures seen on this channel, oldest first, so a render can say why it failed. */
  readonly failures: readonly ProxyFailure[];
  /** Stops keeping refusals and failures (a long-lived channel, once its first page loaded). */
  forget(): void;
  close(): Promise<void>;
}

interface Recorder {
  refused(r: Refusal): void;
  failed(f: ProxyFailure): void;
}

const REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
};

function failureReason(err: NodeJS.ErrnoException): string {
  const code = err.code ?? 'EUNKNOWN';
  return `${REASONS[code] ?? 'upstream error'} (${code})`;
}

type Resolver = (host: string) => Promise<LookupAddress[]>;

export interface GuardProxyOptions {
  policy: HostPolicy;
  log: Logger;
  /** Called for every refusal on any channel (metrics). */
  onRefusal?: (refusal: Refusal) => void;
  /** DNS for tests; the system resolver otherwise. */
  resolve?: Resolver;
}

// RFC 9110 §7.6.1 hop-by-hop fields, plus the proxy's own.
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** A lookup that answers only with addresses that were already checked. */
function pinnedLookup(addresses: LookupAddress[]): net.LookupFunction {
  return ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options.all) callback(null, addresses);
    else callback(null, addresses[0]?.address, addresses[0]?.family);
  }) as unknown as net.LookupFunction;
}

function bare(host: string): string {
  return host.replace(/^\[|\]$/g, '');
}

export class GuardProxy {
  readonly #options: GuardProxyOptions;
  readonly #agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  readonly #channels = new Set<ProxyChannel>();
  #main: ProxyChannel | undefined;

  private constructor(options: GuardProxyOptions) {
    this.#options = options;
  }

  /** Starts the proxy with its main channel (the one browsers are launched behind). */
  static async start(options: GuardProxyOptions): Promise<GuardProxy> {
    const proxy = new GuardProxy(options);
    proxy.#main = await proxy.openChannel({ keepRefusals: false });
    return proxy;
  }

  /** Listeners open, the main channel included: a figure that must come back down after renders. */
  get openChannels(): number {
    return this.#channels.size;
  }

  /** `http://127.0.0.1:<port>` of the main channel. */
  get url(): string {
    if (!this.#main) throw new Error('guard proxy not started');
    return this.#main.url;
  }

  /**
   * A listener of its own on a fresh loopback port, for one browser context. Refusals on it are
   * kept in `refusals` (unless `keepRefusals` is false, for long-lived channels).
   */
  async openChannel(options: { keepRefusals?: boolean } = {}): Promise<ProxyChannel> {
    const refusals: Refusal[] = [];
    const failures: ProxyFailure[] = [];
    let keep = options.keepRefusals ?? true;
    const record: Recorder = {
      refused: (r) => {
        if (keep) refusals.push(r);
        this.#options.log.info(
          { host: r.host, address: r.address, range: r.range },
          'proxy refused',
        );
        this.#options.onRefusal?.(r);
      },
      failed: (f) => {
        if (keep) failures.push(f);
      },
    };
    const server = http.createServer({ keepAliveTimeout: 30_000 });
    const sockets = new Set<Duplex>();
    server.on('connection', (s: net.Socket) => {
      sockets.add(s);
      s.once('close', () => sockets.delete(s));
    });
    server.on('request', (req, res) => {
      void this.#forward(req, res, record);
    });
    server.on('connect', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
      sockets.add(socket);
      void this.#tunnel(req, socket, head, record);
    });
    server.on('clientError', (_err, socket) => {
      socket.destroy();
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        resolve();
      });
    });
    const { port } = server.address() as net.AddressInfo;
    const channel: ProxyChannel = {
      url: `http://127.0.0.1:${port}`,
      refusals,
      failures,
      forget: () => {
        keep = false;
        refusals.length = 0;
        failures.length = 0;
      },
      close: () =>
        new Promise<void>((resolve) => {
          this.#channels.delete(channel);
          for (const s of sockets) s.destroy();
          server.close(() => {
            resolve();
          });
        }),
    };
    this.#channels.add(channel);
    return channel;
  }

  async #judge(host: string, record: Recorder) {
    const verdict = await checkHost(bare(host), this.#options.policy, this.#options.resolve);
    if (!verdict.ok && verdict.reason === 'refused') {
      record.refused({
        host: verdict.host,
        address: verdict.address,
        range: verdict.range,
        message: verdict.message,
      });
    }
    return verdict;
  }

  async #forward(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    record: Recorder,
  ): Promise<void> {
    const fail = (status: number, text: string) => {
      if (!res.headersSent) res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(`${text}\n`);
    };
    let target: URL;
    try {
      target = new URL(req.url ?? '');
    } catch {
      fail(400, 'havn proxy: absolute http URL required');
      return;
    }
    if (target.protocol !== 'http:') {
      fail(400, 'havn proxy: only http is forwarded; use CONNECT');
      return;
    }
    const verdict = await this.#judge(target.hostname, record);
    if (!verdict.ok) {
      if (verdict.reason === 'unresolved')
        record.failed({ target: target.href, reason: verdict.message });
      fail(verdict.reason === 'refused' ? 403 : 502, `havn proxy: ${verdict.message}`);
      return;
    }
    const headers: http.OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (!HOP_BY_HOP.has(name) && value !== undefined) headers[name] = value;
    }
    const upstream = http.request({
      host: bare(target.hostname),
      port: Number(target.port || 80),
      method: req.method,
      path: `${target.pathname}${target.search}`,
      headers,
      setHost: false,
      agent: this.#agent,
      lookup: pinnedLookup(verdict.addresses),
    });
    upstream.on('response', (up) => {
      const out: http.OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(up.headers)) {
        if (!HOP_BY_HOP.has(name) && value !== undefined) out[name] = value;
      }
      res.writeHead(up.statusCode ?? 502, up.statusMessage, out);
      up.pipe(res);
    });
    upstream.on('error', (err: NodeJS.ErrnoException) => {
      if (!res.headersSent) record.failed({ target: target.href, reason: failureReason(err) });
      fail(502, `havn proxy: ${failureReason(err)}`);
    });
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  }

  async #tunnel(
    req: http.IncomingMessage,
    client: Duplex,
    head: Buffer,
    record: Recorder,
  ): Promise<void> {
    client.on('error', () => client.destroy());
    let target: URL;
    try {
      target = new URL(`http://${req.url ?? ''}`);
      if (!target.port) throw new Error('port required');
    } catch {
      client.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const verdict = await this.#judge(target.hostname, record);
    const authority = `${bare(target.hostname)}:${target.port}`;
    if (!verdict.ok) {
      if (verdict.reason === 'unresolved')
        record.failed({ target: authority, reason: verdict.message });
      const status = verdict.reason === 'refused' ? '403 Forbidden' : '502 Bad Gateway';
      client.end(`HTTP/1.1 ${status}\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    const upstream = net.connect({
      host: bare(target.hostname),
      port: Number(target.port),
      lookup: pinnedLookup(verdict.addresses),
      autoSelectFamily: true,
    });
    let connected = false;
    upstream.once('connect', () => {
      connected = true;
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', (err: NodeJS.ErrnoException) => {
      if (!connected) record.failed({ target: authority, reason: failureReason(err) });
      if (!connected) client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n');
      else client.destroy();
    });
    client.on('close', () => upstream.destroy());
  }

  /** Closes every channel and the upstream keep-alive pool. */
  async close(): Promise<void> {
    await Promise.all([...this.#channels].map((c) => c.close()));
    this.#agent.destroy();
  }
}
