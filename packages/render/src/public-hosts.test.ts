import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trustedHost, type HostedRequest } from '@havn/shared';
import {
  hostRefusal,
  LOOPBACK_ONLY,
  originRefusal,
  publicOrigin,
  type PublicHosts,
} from './public-hosts.js';
import { startService, type TestService } from './test-support/service.js';

// docs/render.md#hosts-and-origins: which Host goes into a URL, which is refused in anonymous mode
// (a DNS-rebinding page's), and which browser Origin the door and the live view take.

const at = (host: string | undefined, origin?: string, local = '127.0.0.1'): HostedRequest => ({
  headers: { ...(host !== undefined && { host }), ...(origin !== undefined && { origin }) },
  socket: { localAddress: local, localPort: 3000 },
});

const configured: PublicHosts = {
  baseUrl: undefined,
  allowed: ['render.example.com', '.corp.test'],
  refuseUntrusted: true,
};

describe('the Host the service trusts', () => {
  it('is a loopback name, the address reached, or a configured name', () => {
    for (const host of [
      '127.0.0.1:3000',
      '127.9.9.9',
      'localhost:3000',
      'app.localhost',
      '[::1]:3000',
      'render.example.com',
      'corp.test',
      'a.b.corp.test:8443',
      'LOCALHOST:3000',
    ]) {
      expect(trustedHost(at(host), configured), host).toBe(true);
    }
    expect(trustedHost(at('10.0.0.5:3000', undefined, '::ffff:10.0.0.5'), configured)).toBe(true);
    for (const host of [
      undefined,
      '',
      'rebind.test:3000',
      'evil.example.com',
      'xcorp.test',
      'localhost.evil.test',
      '10.0.0.6:3000',
      'render.example.com/x',
      'a@render.example.com',
    ]) {
      expect(trustedHost(at(host), configured), String(host)).toBe(false);
    }
  });

  it("trusts PUBLIC_BASE_URL's host", () => {
    const hosts = { ...LOOPBACK_ONLY, baseUrl: 'https://render.example.com' };
    expect(trustedHost(at('render.example.com'), hosts)).toBe(true);
    expect(trustedHost(at('other.example.com'), hosts)).toBe(false);
  });
});

describe('URLs the service hands out', () => {
  it('use PUBLIC_BASE_URL, else a trusted Host, else the address the request reached', () => {
    const base = { ...LOOPBACK_ONLY, baseUrl: 'https://render.example.com' };
    expect(publicOrigin(at('evil.test'), base, 'http')).toBe('https://render.example.com');
    expect(publicOrigin(at('localhost:3000'), LOOPBACK_ONLY, 'http')).toBe('http://localhost:3000');
    expect(publicOrigin(at('render.example.com'), configured, 'https')).toBe(
      'https://render.example.com',
    );
    expect(publicOrigin(at('evil.test:3000'), LOOPBACK_ONLY, 'http')).toBe('http://127.0.0.1:3000');
    expect(publicOrigin(at(undefined, undefined, '::1'), LOOPBACK_ONLY, 'http')).toBe(
      'http://[::1]:3000',
    );
  });
});

describe('a browser Origin', () => {
  it("passes when absent, the service's own, or PUBLIC_BASE_URL's", () => {
    expect(originRefusal(at('127.0.0.1:3000'), LOOPBACK_ONLY)).toBeUndefined();
    expect(originRefusal(at('127.0.0.1:3000', 'http://127.0.0.1:3000'), LOOPBACK_ONLY)).toBe(
      undefined,
    );
    // Behind a TLS proxy the service sees http, the browser says https.
    expect(
      originRefusal(at('render.example.com', 'https://render.example.com'), configured),
    ).toBeUndefined();
    const base = { ...LOOPBACK_ONLY, baseUrl: 'https://render.example.com' };
    expect(originRefusal(at('10.1.1.1:3000', 'https://render.example.com'), base)).toBeUndefined();
  });

  it('is refused from another site, another port, a rebound name or an opaque origin', () => {
    for (const [host, origin] of [
      ['127.0.0.1:3000', 'https://evil.example'],
      ['127.0.0.1:3000', 'http://127.0.0.1:3001'],
      ['127.0.0.1:3000', 'http://localhost:3000'],
      ['rebind.test:3000', 'http://rebind.test:3000'],
      ['127.0.0.1:3000', 'null'],
      ['127.0.0.1:3000', 'file://'],
    ] as const) {
      expect(originRefusal(at(host, origin), LOOPBACK_ONLY), origin).toBe(
        `origin ${JSON.stringify(origin)} is not allowed`,
      );
    }
  });
});

describe('anonymous mode', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startService({ ALLOW_ANONYMOUS: '1', ALLOWED_PUBLIC_HOSTS: 'render.test' });
  });
  afterAll(async () => {
    await svc.close();
  });

  /** GET `path` with a Host header of the caller's choosing, as a rebound page would send it. */
  const get = (path: string, host: string) =>
    new Promise<{ status: number; code: unknown; body: string }>((resolve, reject) => {
      const req = request(`${svc.base}${path}`, { headers: { host } }, (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, code: res.headers['havn-error-code'], body });
        });
      });
      req.on('error', reject);
      req.end();
    });

  it('refuses a Host that is neither loopback nor configured (DNS rebinding)', async () => {
    const refused = await get('/v1/profiles', 'rebind.test:80');
    expect(refused.status).toBe(403);
    expect(refused.code).toBe('RENDER_HOST_REFUSED');
    expect(JSON.parse(refused.body)).toEqual({
      error:
        'host "rebind.test:80" is not allowed: use a loopback address or add the name to ALLOWED_PUBLIC_HOSTS',
    });
    expect((await get('/healthz', 'rebind.test')).status).toBe(403);
    expect((await get('/v1/profiles', `localhost:${new URL(svc.base).port}`)).status).toBe(200);
    expect((await get('/v1/profiles', 'render.test')).status).toBe(200);
  });

  it('is not what a token-holding service does: there the token decides', () => {
    expect(hostRefusal(at('rebind.test'), LOOPBACK_ONLY)).toBeUndefined();
  });
});
