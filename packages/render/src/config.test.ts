import { ConfigError } from '@havn/shared';
import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';

// docs/render.md#configuration: defaults, and a bad value stops the service naming the variable.

const base = { PATH: process.env.PATH, BROWSER_API_TOKEN: 't' };

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const c = loadConfig(base);
    expect(c).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      artifactDir: './data/artifacts',
      artifactTtlMs: 86_400_000,
      queueTimeoutMs: 30_000,
      renderTimeoutMs: 30_000,
      maxHtmlBytes: 5 * 1024 * 1024,
      allowedHosts: [],
      allowPrivateNetwork: false,
      allowInsecureTls: false,
      allowAnonymous: false,
      maxSessions: 8,
      sessionTtlMs: 300_000,
      sessionMaxTtlMs: 3_600_000,
      ffmpegPath: 'ffmpeg',
      qpdfPath: 'qpdf',
      maxContentBytes: 5 * 1024 * 1024,
      captureLimits: { maxViewport: 8192, maxDeviceScaleFactor: 4, maxCapturePixels: 33_177_600 },
      cdpMaxMessageBytes: 80 * 1024 * 1024,
      cdpMaxClients: 4,
      browserUids: { first: 64000, last: 64999 },
    });
    expect(c.maxConcurrency).toBeGreaterThanOrEqual(2);
    expect(c.chromiumPath).toMatch(/chromium/);
  });

  it('refuses to start without BROWSER_API_TOKEN unless anonymous, naming other problems too', () => {
    expect(() => loadConfig({ PATH: process.env.PATH, PORT: 'x' })).toThrow(
      /PORT[\s\S]*BROWSER_API_TOKEN is required unless ALLOW_ANONYMOUS=1/,
    );
    expect(() => loadConfig({ PATH: process.env.PATH })).toThrow(/BROWSER_API_TOKEN/);
    expect(loadConfig({ PATH: process.env.PATH, ALLOW_ANONYMOUS: '1' }).allowAnonymous).toBe(true);
  });

  it('reads ALLOWED_PUBLIC_HOSTS as lower-case names and refuses a URL or a port in it', () => {
    expect(
      loadConfig({ ...base, ALLOWED_PUBLIC_HOSTS: 'Render.Example.com, .corp.test' }),
    ).toMatchObject({ allowedPublicHosts: ['render.example.com', '.corp.test'] });
    expect(loadConfig(base).allowedPublicHosts).toEqual([]);
    for (const bad of ['https://render.example.com', 'render.example.com:443', '*.example.com']) {
      expect(() => loadConfig({ ...base, ALLOWED_PUBLIC_HOSTS: bad }), bad).toThrow(
        /ALLOWED_PUBLIC_HOSTS must list host names/,
      );
    }
  });

  it('reads BROWSER_MAX_MEMORY as bytes or with a unit, or off, and SESSION_MAX_PAGES', () => {
    const memory = (value: string) =>
      loadConfig({ ...base, BROWSER_MAX_MEMORY: value }).browserMaxMemory;
    expect(memory('536870912')).toBe(512 * 1024 * 1024);
    expect(memory('512MiB')).toBe(512 * 1024 * 1024);
    expect(memory('512MB')).toBe(512_000_000);
    expect(memory('2GiB')).toBe(2 * 1024 * 1024 * 1024);
    expect(memory('1.5 gib')).toBe(1.5 * 1024 * 1024 * 1024);
    expect(memory('off')).toBeUndefined();
    // The default: a quarter of the machine, between 512 MiB and 2 GiB.
    const byDefault = loadConfig(base).browserMaxMemory ?? 0;
    expect(byDefault).toBeGreaterThanOrEqual(512 * 1024 * 1024);
    expect(byDefault).toBeLessThanOrEqual(2 * 1024 * 1024 * 1024);
    for (const bad of ['lots', '2 TB', '-1', '64MiB']) {
      expect(() => memory(bad), bad).toThrow(/BROWSER_MAX_MEMORY must be bytes or a size/);
    }
    expect(loadConfig(base).sessionMaxPages).toBe(20);
    expect(loadConfig({ ...base, SESSION_MAX_PAGES: '3' }).sessionMaxPages).toBe(3);
    expect(() => loadConfig({ ...base, SESSION_MAX_PAGES: '0' })).toThrow(/SESSION_MAX_PAGES/);
  });

  it('names every bad variable at once', () => {
    let error: unknown;
    try {
      loadConfig({
        ...base,
        MAX_CONCURRENCY: 'many',
        QUEUE_TIMEOUT_MS: '-5',
        ALLOW_PRIVATE_NETWORK: 'yes',
      });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).toContain('MAX_CONCURRENCY must be a whole number from 1 to 256 (got "many")');
    expect(message).toContain('QUEUE_TIMEOUT_MS must be a whole number 1 or more (got "-5")');
    expect(message).toContain('ALLOW_PRIVATE_NETWORK must be 1 or 0 (got "yes")');
  });

  it('takes the bounds and the browser uids, and names a bad one with its rule', () => {
    const c = loadConfig({
      ...base,
      MAX_VIEWPORT: '4096',
      MAX_CAPTURE_PIXELS: '1000000',
      CDP_MAX_CLIENTS: '1',
      BROWSER_UIDS: 'off',
    });
    expect(c.captureLimits).toMatchObject({ maxViewport: 4096, maxCapturePixels: 1_000_000 });
    expect(c.cdpMaxClients).toBe(1);
    expect(c.browserUids).toBeUndefined();
    expect(() =>
      loadConfig({ ...base, BROWSER_UIDS: '5-1', CDP_MAX_MESSAGE_BYTES: '10', MAX_VIEWPORT: '0' }),
    ).toThrow(/MAX_VIEWPORT[\s\S]*CDP_MAX_MESSAGE_BYTES[\s\S]*BROWSER_UIDS must be a range/);
    expect(() => loadConfig({ ...base, BROWSER_UIDS: '70000-70004', MAX_SESSIONS: '4' })).toThrow(
      /BROWSER_UIDS must hold at least MAX_SESSIONS \+ SESSION_POOL_SIZE \+ 1 \(6\) uids/,
    );
  });

  it('reads STATE_KEY as 32 bytes of base64 and MAX_STATE_BYTES, and never echoes a bad key', () => {
    const key = Buffer.alloc(32, 9);
    expect(loadConfig(base)).toMatchObject({
      stateKey: undefined,
      maxStateBytes: 10 * 1024 * 1024,
    });
    const c = loadConfig({ ...base, STATE_KEY: key.toString('base64'), MAX_STATE_BYTES: '4096' });
    expect(c.stateKey?.equals(key)).toBe(true);
    expect(c.maxStateBytes).toBe(4096);
    expect(
      loadConfig({ ...base, STATE_KEY: key.toString('base64url') }).stateKey?.equals(key),
    ).toBe(true);
    for (const bad of ['not base64 at all', Buffer.alloc(16).toString('base64'), 'A'.repeat(60)]) {
      let message = '';
      try {
        loadConfig({ ...base, STATE_KEY: bad });
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        message = (err as Error).message;
      }
      expect(message).toContain('STATE_KEY must be 32 random bytes in base64');
      expect(message).not.toContain(bad);
    }
  });

  it('takes SESSION_POOL_SIZE, at most MAX_SESSIONS, and names a bad one', () => {
    expect(loadConfig(base).sessionPoolSize).toBe(1);
    expect(loadConfig({ ...base, SESSION_POOL_SIZE: '0' }).sessionPoolSize).toBe(0);
    expect(loadConfig({ ...base, SESSION_POOL_SIZE: '3', MAX_SESSIONS: '3' }).sessionPoolSize).toBe(
      3,
    );
    // The default pool never outgrows the sessions: none when sessions are off.
    expect(loadConfig({ ...base, MAX_SESSIONS: '0' }).sessionPoolSize).toBe(0);
    expect(() => loadConfig({ ...base, SESSION_POOL_SIZE: 'two' })).toThrow(
      'SESSION_POOL_SIZE must be a whole number from 0 to 64 (got "two")',
    );
    expect(() => loadConfig({ ...base, SESSION_POOL_SIZE: '5', MAX_SESSIONS: '4' })).toThrow(
      'SESSION_POOL_SIZE must not exceed MAX_SESSIONS (4); 0 turns the pool off',
    );
    expect(() =>
      loadConfig({
        ...base,
        BROWSER_UIDS: '70000-70009',
        MAX_SESSIONS: '8',
        SESSION_POOL_SIZE: '2',
      }),
    ).toThrow(/BROWSER_UIDS must hold at least MAX_SESSIONS \+ SESSION_POOL_SIZE \+ 1 \(11\) uids/);
  });

  it('parses ALLOWED_HOSTS as a comma-separated list', () => {
    expect(
      loadConfig({ ...base, ALLOWED_HOSTS: 'intranet.example, Wiki.Local ,' }).allowedHosts,
    ).toEqual(['intranet.example', 'Wiki.Local']);
  });

  it('checks that CHROMIUM_PATH is an executable', () => {
    expect(() => loadConfig({ ...base, CHROMIUM_PATH: '/nonexistent/chrome' })).toThrow(
      'CHROMIUM_PATH must name an executable file (got "/nonexistent/chrome")',
    );
    expect(loadConfig({ ...base, CHROMIUM_PATH: 'chromium' }).chromiumPath).toBe(
      '/usr/bin/chromium',
    );
  });
});
