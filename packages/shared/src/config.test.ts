import { describe, expect, it } from 'vitest';
import { ConfigError, envFlag, envInt, envList, envUrl, parseEnv } from './config.js';

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
    const problems = (error as ConfigError).problems.join('\n');
    for (const name of ['PORT', 'MAX_CONCURRENCY', 'ALLOW_ANONYMOUS', 'PUBLIC_BASE_URL']) {
      expect(problems).toContain(`${name}:`);
    }
    expect(problems).toContain('"eighty"');
  });
});
