// docs/forms.md#page-headers in real Chromium: a page on another origin frames the inbox, the
// hosted form page and its thank-you page. The inbox shows nowhere; the form's pages show only on
// the origins the form allows.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { seedForm, startForms, type RunningForms } from '../test-support/forms-server.js';
import { INBOX_CSP } from './page-headers.js';

describe('framing the inbox and the hosted form page', () => {
  let s: RunningForms;
  let web: string;
  let site: Server;
  let port = 0;
  let browser: Browser;
  // One site server, reached under two names: two origins.
  const allowed = () => `http://127.0.0.1:${String(port)}`;
  const other = () => `http://localhost:${String(port)}`;

  beforeAll(async () => {
    web = mkdtempSync(join(tmpdir(), 'havn-web-'));
    writeFileSync(join(web, 'index.html'), '<!doctype html><title>Inbox</title>');
    mkdirSync(join(web, 'f'));
    writeFileSync(join(web, 'f', 'index.html'), '<!doctype html><title>Hosted form</title>');
    site = createServer((_req, res) => {
      const frames = ['/', '/f/acme/contact', '/f/acme/contact/thanks']
        .map((path, i) => `<iframe name="f${String(i)}" src="${s.url}${path}"></iframe>`)
        .join('');
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><title>site</title>${frames}`);
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    port = (site.address() as AddressInfo).port;
    s = await startForms({ config: { webDir: web } });
    await seedForm(s.url, { origin: allowed() });
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run'],
    });
  });
  afterAll(async () => {
    await browser.close();
    await s.close();
    await new Promise((resolve) => site.close(resolve));
    rmSync(web, { recursive: true, force: true });
  });

  /**
   * What each of the three frames shows on `origin`, once all have loaded: its title, or
   * `blocked` for Chromium's error page (a frame still loading reads `pending`).
   */
  async function framed(origin: string): Promise<string[]> {
    const page: Page = await browser.newPage();
    try {
      await page.goto(origin, { waitUntil: 'load' });
      const shown = async () =>
        Promise.all(
          (await page.locator('iframe').elementHandles()).map(async (element) => {
            const url = (await element.contentFrame())?.url() ?? '';
            if (url.startsWith(s.url)) return (await element.contentFrame())?.title();
            return url.startsWith('chrome-error:') ? 'blocked' : 'pending';
          }),
        );
      await expect
        .poll(async () => (await shown()).includes('pending'), { timeout: 15_000 })
        .toBe(false);
      return (await shown()).map(String);
    } finally {
      await page.close();
    }
  }

  test('the headers: the inbox frames nowhere, a form where its answers may come from', async () => {
    for (const path of ['/', '/index.html']) {
      const res = await fetch(`${s.url}${path}`);
      expect(res.headers.get('content-security-policy'), path).toBe(INBOX_CSP);
    }
    expect(INBOX_CSP).toContain("frame-ancestors 'none'");
    expect(INBOX_CSP).toContain("script-src 'self';");
    expect(INBOX_CSP).not.toContain("'unsafe-inline'");
    const hosted = await fetch(`${s.url}/f/acme/contact`);
    expect(hosted.headers.get('content-security-policy')).toBe(`frame-ancestors ${allowed()}`);
    const unknown = await fetch(`${s.url}/f/acme/nope`);
    expect(unknown.headers.get('content-security-policy')).toBe("frame-ancestors 'none'");
    // The API is JSON, not a page: no policy of a page's.
    const health = await fetch(`${s.url}/api/health`);
    expect(health.headers.get('content-security-policy')).toBeNull();
  });

  test('on an allowed origin only the form shows; on any other nothing does', async () => {
    expect(await framed(allowed())).toEqual(['blocked', 'Hosted form', 'Thank you']);
    expect(await framed(other())).toEqual(['blocked', 'blocked', 'blocked']);
  });
});
