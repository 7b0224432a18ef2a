// The copy-paste snippet of docs/forms.md#plain-html-posts, in real Chromium with JavaScript off:
// taken from the page itself, so the docs cannot drift from what works.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { client, seedForm, startForms, type RunningForms } from '../test-support/forms-server.js';

const docs = readFileSync(new URL('../../../../docs/forms.md', import.meta.url), 'utf8');
const section = docs.slice(docs.indexOf('### Plain HTML posts'));
const snippet = /```html\n([\s\S]*?)```/.exec(section)?.[1] ?? '';

describe('the docs snippet in a browser without JavaScript', () => {
  let s: RunningForms;
  let site: Server;
  let siteUrl = '';
  let browser: Browser;

  beforeAll(async () => {
    site = createServer((req, res) => {
      const page =
        req.url === '/thanks.html'
          ? '<h1>Thanks from the site</h1>'
          : snippet.replace(
              'https://forms.example.com',
              // The form's own server, another origin than this page's.
              s.url,
            );
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><html><body>${page}</body></html>`);
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    siteUrl = `http://127.0.0.1:${String((site.address() as AddressInfo).port)}`;
    s = await startForms({ config: { ingestRateLimitPerMinute: 0 } });
    await seedForm(s.url, { origin: siteUrl });
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
  });

  test('a person fills the form, sends it, lands on the thanks page, and it is stored', async () => {
    expect(snippet).toContain('action="https://forms.example.com/api/orgs/acme/forms/contact/');
    const context = await browser.newContext({ javaScriptEnabled: false });
    try {
      const page = await context.newPage();
      await page.goto(siteUrl);
      await page.getByLabel('Your name').fill('Ada Lovelace');
      await page.getByLabel('Email').fill('ada@example.com');
      await page.getByLabel('Message').fill('Hello from a page with no script');
      await page.getByLabel('A', { exact: true }).check();
      await page.getByLabel('B', { exact: true }).check();
      await page.getByRole('button', { name: 'Send' }).click();
      await page.waitForURL(`${s.url}/f/acme/contact/thanks`);
      expect(await page.textContent('body')).toContain('Thank you.');

      const admin = client(s.url);
      const feed = await admin<{ submissions: { id: string }[] }>(
        'GET',
        '/api/orgs/acme/forms/contact/submissions',
      );
      expect(feed.body.submissions).toHaveLength(1);
      const full = await admin(
        'GET',
        `/api/orgs/acme/forms/contact/submissions/${feed.body.submissions[0]!.id}`,
      );
      expect(full.body).toMatchObject({
        answers: {
          name: 'Ada Lovelace',
          email: 'ada@example.com',
          message: 'Hello from a page with no script',
          topics: ['a', 'b'],
        },
        submitFields: { source: 'website', _gotcha: '' },
        origin: siteUrl,
        spam: false,
      });

      // With a redirectUrl on the site, the person comes back to the site.
      await admin('PATCH', '/api/orgs/acme/forms/contact', {
        redirectUrl: `${siteUrl}/thanks.html`,
      });
      await page.goto(siteUrl);
      await page.getByLabel('Your name').fill('Grace Hopper');
      await page.getByLabel('Email').fill('grace@example.com');
      await page.getByRole('button', { name: 'Send' }).click();
      await page.waitForURL(`${siteUrl}/thanks.html`);
      expect(await page.textContent('h1')).toBe('Thanks from the site');
    } finally {
      await context.close();
    }
  });
});
