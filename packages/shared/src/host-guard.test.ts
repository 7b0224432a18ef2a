import type { LookupAddress } from 'node:dns';
import { get } from 'node:http';
import { describe, expect, it } from 'vitest';
import { checkHost, guardedLookup, isAllowedHost } from './host-guard.js';

const strict = { allowedHosts: [], allowPrivate: false };
const fakeDns =
  (table: Record<string, string[]>) =>
  (host: string): Promise<LookupAddress[]> => {
    const answers = table[host];
    if (!answers) return Promise.reject(Object.assign(new Error('nx'), { code: 'ENOTFOUND' }));
    return Promise.resolve(
      answers.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
    );
  };

describe('checkHost', () => {
  it('refuses a name with one public and one private record, naming host, address and range', async () => {
    const verdict = await checkHost(
      'mixed.example',
      strict,
      fakeDns({ 'mixed.example': ['8.8.8.8', '10.0.0.5'] }),
    );
    expect(verdict).toMatchObject({
      ok: false,
      reason: 'refused',
      host: 'mixed.example',
      address: '10.0.0.5',
    });
    expect(!verdict.ok && verdict.message).toBe(
      'host mixed.example resolves to 10.0.0.5, which is in the refused range private (RFC 1918) 10.0.0.0/8',
    );
  });

  it('returns the checked addresses of a public name', async () => {
    const verdict = await checkHost(
      'Public.Example.',
      strict,
      fakeDns({ 'public.example': ['8.8.8.8', '2606:4700::1'] }),
    );
    expect(verdict).toEqual({
      ok: true,
      addresses: [
        { address: '8.8.8.8', family: 4 },
        { address: '2606:4700::1', family: 6 },
      ],
    });
  });

  it('judges IP literals without DNS, in any spelling', async () => {
    for (const host of ['127.0.0.1', '[::1]', '2130706433', '0x7f000001', '[::ffff:7f00:1]']) {
      expect(await checkHost(host, strict, fakeDns({}))).toMatchObject({
        ok: false,
        reason: 'refused',
      });
    }
  });

  it('reports unresolvable names', async () => {
    expect(await checkHost('nx.example', strict, fakeDns({}))).toMatchObject({
      ok: false,
      reason: 'unresolved',
      message: 'cannot resolve nx.example: ENOTFOUND',
    });
  });

  it('lets ALLOWED_HOSTS entries and their subdomains through, but not look-alikes', async () => {
    const policy = { allowedHosts: ['Internal.Corp'], allowPrivate: false };
    const dns = fakeDns({
      'internal.corp': ['10.0.0.1'],
      'api.internal.corp': ['10.0.0.2'],
      'evilinternal.corp': ['10.0.0.3'],
    });
    expect((await checkHost('internal.corp', policy, dns)).ok).toBe(true);
    expect((await checkHost('API.internal.corp', policy, dns)).ok).toBe(true);
    expect((await checkHost('evilinternal.corp', policy, dns)).ok).toBe(false);
    expect(isAllowedHost('localhost', [])).toBe(false);
  });

  it('lets everything through when private networks are allowed', async () => {
    expect((await checkHost('127.0.0.1', { allowedHosts: [], allowPrivate: true })).ok).toBe(true);
  });
});

describe('guardedLookup', () => {
  it('stops a real http request to loopback before it connects', async () => {
    const error = await new Promise<Error>((resolve) => {
      get({ host: 'localhost', port: 9, lookup: guardedLookup(strict) }, () => {
        resolve(new Error('connected'));
      }).on('error', resolve);
    });
    expect(error.message).toMatch(
      /^host localhost resolves to (127\.0\.0\.1|::1), which is in the refused range loopback/,
    );
  });
});
