import http from 'node:http';
import net from 'node:net';
import type { LookupAddress } from 'node:dns';
import { createLogger } from '@havn/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startCanary,
  startFixtureServer,
  html,
  type Canary,
  type FixtureServer,
} from '../test-support/fixture-server.js';
import { GuardProxy } from './guard-proxy.js';

// The guard proxy on its own, spoken to as a browser would (absolute-form GET and CONNECT), with a
// fake resolver standing in for DNS so that multi-record and rebinding answers can be staged.

let site: FixtureServer;
let canary: Canary;
let proxy: GuardProxy;
const answers = new Map<string, LookupAddress[]>();
let lookups = 0;

beforeAll(async () => {
  site = await startFixtureServer({ '/hello': html('hello') });
  canary = await startCanary();
  proxy = await GuardProxy.start({
    policy: { allowedHosts: ['site.test'], allowPrivate: false },
    log: createLogger({ name: 'test', level: 'silent' }),
    resolve: (host) => {
      lookups++;
      const a = answers.get(host);
      return a
        ? Promise.resolve(a)
        : Promise.reject(Object.assign(new Error('nx'), { code: 'ENOTFOUND' }));
    },
  });
  answers.set('site.test', [{ address: '127.0.0.1', family: 4 }]);
  answers.set('mixed.test', [
    { address: '93.184.215.14', family: 4 },
    { address: '127.0.0.1', family: 4 },
  ]);
});

afterAll(async () => {
  expect(canary.connections()).toBe(0);
  await proxy.close();
  await site.close();
  await canary.close();
});

function get(proxyUrl: string, target: string): Promise<{ status: number; body: string }> {
  const { port } = new URL(proxyUrl);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, path: target, headers: { host: new URL(target).host } },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, body });
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

function connect(proxyUrl: string, authority: string): Promise<string> {
  const { port } = new URL(proxyUrl);
  return new Promise((resolve, reject) => {
    const s = net.connect(Number(port), '127.0.0.1', () => {
      s.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`);
    });
    s.once('data', (d: Buffer) => {
      resolve(d.toString().split('\r\n')[0] ?? '');
      s.destroy();
    });
    s.on('error', reject);
  });
}

describe('GuardProxy', () => {
  it('forwards an allowed host to the address it checked', async () => {
    const res = await get(proxy.url, `http://site.test:${site.port}/hello`);
    expect(res.status).toBe(200);
    expect(res.body).toContain('hello');
  });

  it('refuses private addresses, including a name with one public and one private record', async () => {
    const channel = await proxy.openChannel();
    const refused = await get(channel.url, `http://mixed.test:${canary.port}/`);
    expect(refused.status).toBe(403);
    const direct = await get(channel.url, `http://127.0.0.1:${canary.port}/`);
    expect(direct.status).toBe(403);
    expect(channel.refusals.map((r) => [r.host, r.address, r.range])).toEqual([
      ['mixed.test', '127.0.0.1', 'loopback 127.0.0.0/8'],
      ['127.0.0.1', '127.0.0.1', 'loopback 127.0.0.0/8'],
    ]);
    await channel.close();
  });

  it('refuses CONNECT tunnels into private space and reports unreachable ones', async () => {
    const channel = await proxy.openChannel();
    expect(await connect(channel.url, `127.0.0.1:${canary.port}`)).toBe('HTTP/1.1 403 Forbidden');
    expect(await connect(channel.url, `[::ffff:7f00:1]:${canary.port}`)).toBe(
      'HTTP/1.1 403 Forbidden',
    );
    expect(await connect(channel.url, `nowhere.test:443`)).toBe('HTTP/1.1 502 Bad Gateway');
    expect(channel.failures).toEqual([
      { target: 'nowhere.test:443', reason: 'cannot resolve nowhere.test: ENOTFOUND' },
    ]);
    expect(await connect(channel.url, `site.test:${site.port}`)).toBe(
      'HTTP/1.1 200 Connection Established',
    );
    await channel.close();
  });

  it('resolves once per request and never lets a later answer reach the socket', async () => {
    // First answer public-looking allowed host; the next lookup (rebinding) would say canary.
    answers.set('rebind.test', [{ address: '127.0.0.1', family: 4 }]);
    const before = lookups;
    const res = await get(proxy.url, `http://rebind.test:${canary.port}/`);
    expect(res.status).toBe(403);
    expect(lookups - before).toBe(1);
  });
});
