import { createServer, request as httpRequest, type Server } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { checkHost, type HostPolicy } from '@havn/shared';

// A minimal stand-in for render's guard proxy (netguard/), so session tests run before it lands:
// HTTP forwarding and CONNECT, each checked with the shared policy, connecting to the checked
// address. Refusals answer 403 and are counted.

export interface TestGuardProxy {
  url: string;
  refusals: string[];
  close(): Promise<void>;
}

export async function startTestGuardProxy(policy: HostPolicy): Promise<TestGuardProxy> {
  const refusals: string[] = [];
  const server: Server = createServer((req, res) => {
    void (async () => {
      const target = new URL(req.url ?? '');
      const verdict = await checkHost(target.hostname, policy);
      const first = verdict.ok ? verdict.addresses[0] : undefined;
      if (!first) {
        refusals.push(target.host);
        res.writeHead(403).end('refused by the private-network policy');
        return;
      }
      const upstream = httpRequest(
        {
          host: first.address,
          port: target.port || 80,
          path: `${target.pathname}${target.search}`,
          method: req.method,
          headers: { ...req.headers, host: target.host },
        },
        (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
        },
      );
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    })();
  });
  server.on('connect', (req, socket) => {
    void (async () => {
      const [host = '', port = '443'] = (req.url ?? '').split(/:(?=\d+$)/);
      const verdict = await checkHost(host, policy);
      const first = verdict.ok ? verdict.addresses[0] : undefined;
      if (!first) {
        refusals.push(host);
        socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
        return;
      }
      const upstream = connect(Number(port), first.address, () => {
        socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.pipe(socket);
        socket.pipe(upstream);
      });
      upstream.on('error', () => socket.destroy());
      socket.on('error', () => upstream.destroy());
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    refusals,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}

/** The policy flags render's browser/ launches with; sessions add their own DevTools flags. */
export function testLaunchArgs(proxyUrl: string): string[] {
  return [
    `--proxy-server=${proxyUrl}`,
    '--proxy-bypass-list=<-loopback>',
    '--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1',
    '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
    '--webrtc-ip-handling-policy=disable_non_proxied_udp',
    '--disable-quic',
    '--disable-background-networking',
    '--disable-component-update',
    '--no-first-run',
    '--disable-sync',
    '--disable-gpu',
    '--no-sandbox',
    '--disable-dev-shm-usage',
  ];
}
