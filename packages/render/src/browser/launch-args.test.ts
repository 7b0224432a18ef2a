import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import { startCanary, type Canary } from '../test-support/fixture-server.js';
import { freePort } from '../../../../test-support/ports.js';
import { browserLaunchArgs } from './launch-args.js';

// The launch flags close Chromium's side doors on their own: pointed at a proxy port where nothing
// listens, a page still cannot reach 127.0.0.1, localhost or [::1] directly (loopback is not
// bypassed), and browser-side DNS fails.

let browser: Browser;
let canary: Canary;

beforeAll(async () => {
  canary = await startCanary();
  const { chromiumPath } = loadConfig({ PATH: process.env.PATH, ALLOW_ANONYMOUS: '1' });
  browser = await chromium.launch({
    executablePath: chromiumPath,
    args: browserLaunchArgs(`http://127.0.0.1:${await freePort()}`, { sandbox: false }),
  });
});

afterAll(async () => {
  await browser.close();
  expect(canary.connections()).toBe(0);
  await canary.close();
});

describe('browserLaunchArgs', () => {
  it('leaves a page no direct way to loopback', async () => {
    const page = await browser.newPage();
    try {
      for (const host of ['127.0.0.1', 'localhost', '[::1]', '2130706433']) {
        const err = await page.goto(`http://${host}:${canary.port}/`).catch((e: unknown) => e);
        expect(String(err), host).toMatch(/net::ERR_PROXY_CONNECTION_FAILED/);
      }
    } finally {
      await page.close();
    }
    // A fresh page: the last failed navigation may still be committing its error page.
    const fresh = await browser.newPage();
    try {
      await fresh.setContent('<p>x</p>');
      const fetched = await fresh.evaluate(
        `fetch('http://127.0.0.1:${canary.port}/').then(() => 'reached', () => 'blocked')`,
      );
      expect(fetched).toBe('blocked');
      expect(canary.connections()).toBe(0);
    } finally {
      await fresh.close();
    }
  });

  it('carries the policy flags', () => {
    const args = browserLaunchArgs('http://127.0.0.1:1', { sandbox: false });
    expect(args).toEqual(
      expect.arrayContaining([
        '--proxy-server=http://127.0.0.1:1',
        '--proxy-bypass-list=<-loopback>',
        '--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1',
        '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
        '--webrtc-ip-handling-policy=disable_non_proxied_udp',
        '--disable-quic',
        '--disable-background-networking',
      ]),
    );
  });
});
