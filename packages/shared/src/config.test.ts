import { describe, expect, it } from 'vitest';
import {
  collectEnv,
  ConfigError,
  envAddressList,
  envFlag,
  envInt,
  envList,
  envUrl,
  parseEnv,
} from './config.js';

const shape = {
  PORT: envInt(3000, 0, 65535),
  MAX_CONCURRENCY: envInt(2, 1),
  ALLOW_ANONYMOUS: envFlag(),
  ALLOWED_HOSTS: envList(),
  PUBLIC_BASE_URL: envUrl(),
};

describe('parseEnv', () => {
  it('applies defaults and freezes the result', () => {
    const config = parseEnv(shape, {});
    expect(config).toEqual({
      PORT: 3000,
      MAX_CONCURRENCY: 2,
      ALLOW_ANONYMOUS: false,
      ALLOWED_HOSTS: [],
    });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('parses given values, treating empty strings as unset', () => {
    const config = parseEnv(shape, {
      PORT: '8080',
      MAX_CONCURRENCY: '',
      ALLOW_ANONYMOUS: '1',
      ALLOWED_HOSTS: ' a.example, ,b.example ',
      PUBLIC_BASE_URL: 'https://render.example/',
    });
    expect(config).toEqual({
      PORT: 8080,
      MAX_CONCURRENCY: 2,
      ALLOW_ANONYMOUS: true,
      ALLOWED_HOSTS: ['a.example', 'b.example'],
      PUBLIC_BASE_URL: 'https://render.example',
    });
  });

  it('names every bad variable in one error', () => {
    let error: unknown;
    try {
      parseEnv(shape, {
        PORT: 'eighty',
        MAX_CONCURRENCY: '0',
        ALLOW_ANONYMOUS: 'yes',
        PUBLIC_BASE_URL: 'ftp://x',
      });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      'PORT must be a whole number from 0 to 65535 (got "eighty")',
      'MAX_CONCURRENCY must be 1 or more (got "0")',
      'ALLOW_ANONYMOUS must be 1 or 0 (got "yes")',
      'PUBLIC_BASE_URL must be an http(s) URL (got "ftp://x")',
    ]);
  });

  it('says a number over its bound in plain words, one line per variable', () => {
    expect(collectEnv(shape, { PORT: '99999' }).problems).toEqual([
      'PORT must be from 0 to 65535 (got "99999")',
    ]);
    expect(collectEnv(shape, { MAX_CONCURRENCY: '99999999999999999999' }).problems).toEqual([
      'MAX_CONCURRENCY must be a whole number 1 or more (got "99999999999999999999")',
    ]);
  });
});

describe('envAddressList', () => {
  const proxies = { TRUST_PROXY: envAddressList() };

  it('takes addresses, CIDR ranges and the named ranges Fastify knows', () => {
    expect(
      parseEnv(proxies, { TRUST_PROXY: '10.0.0.0/8, 192.168.1.7,::1,fd00::/8,loopback' })
        .TRUST_PROXY,
    ).toEqual(['10.0.0.0/8', '192.168.1.7', '::1', 'fd00::/8', 'loopback']);
    expect(parseEnv(proxies, {}).TRUST_PROXY).toEqual([]);
  });

  it('refuses anything else, naming the variable', () => {
    for (const bad of ['notanip', '10.0.0.0/33', '10.0.0.1/8/8', '::1/129', '10.0.0.0/x']) {
      expect(collectEnv(proxies, { TRUST_PROXY: bad }).problems).toEqual([
        `TRUST_PROXY must list IP addresses or CIDR ranges such as 10.0.0.0/8, separated by commas (got "${bad}")`,
      ]);
    }
  });
});
