// The copy-paste snippet of docs/forms.md#plain-html-posts, in real Chromium with JavaScript off:
// taken from the page itself, so the docs cannot drift from what works.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  adminToken,
  client,
  seedForm,
  startForms,
  type RunningForms,
} from '../test-support/forms-server.js';

const docs = readFileSync(new URL('../../../../docs/forms.md', import.meta.url), 'utf8');
const section = docs.slice(docs.indexOf('### Plain HTML posts'));
const snippet = /```html\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
const uploads = docs.slice(docs.indexOf('### File uploads'));
const uploadSnippet = /```html\n([\s\S]*?)```/.exec(uploads)?.[1] ?? '';

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
          : (req.url === '/apply' ? uploadSnippet : snippet).replace(
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

  test('the file uploads snippet sends a 3 MB PDF without JavaScript, stored with its answers', async () => {
    expect(uploadSnippet).toContain('enctype="multipart/form-data"');
    const admin = client(s.url);
    const put = await admin('PUT', '/api/orgs/acme/forms/apply', {
      allowedOrigins: [siteUrl],
      definition: {
        intro: { title: 'Apply' },
        questions: [
          { logicalName: 'name', type: 'text', label: 'Your name', required: true },
          { logicalName: 'cv', type: 'file', label: 'CV', accept: ['application/pdf'] },
        ],
      },
    });
    expect(put.status, put.text).toBe(200);
    const pdf = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(3 * 1024 * 1024, 0x20)]);
    const context = await browser.newContext({ javaScriptEnabled: false });
    try {
      const page = await context.newPage();
      await page.goto(`${siteUrl}/apply`);
      await page.getByLabel('Your name').fill('Ada Lovelace');
      await page.getByLabel('CV (PDF)').setInputFiles({
        name: 'Ada CV.pdf',
        mimeType: 'application/pdf',
        buffer: pdf,
      });
      await page.getByRole('button', { name: 'Send' }).click();
      await page.waitForURL(`${s.url}/f/acme/apply/thanks`);
      const feed = await admin<{ submissions: { id: string }[] }>(
        'GET',
        '/api/orgs/acme/forms/apply/submissions',
      );
      const id = feed.body.submissions[0]?.id ?? '';
      const full = await admin<{ answers: { cv: { id: string }[] } }>(
        'GET',
        `/api/orgs/acme/forms/apply/submissions/${id}`,
      );
      expect(full.body.answers).toMatchObject({
        name: 'Ada Lovelace',
        cv: [
          {
            name: 'Ada CV.pdf',
            size: pdf.length,
            type: 'application/pdf',
            sha256: createHash('sha256').update(pdf).digest('hex'),
          },
        ],
      });
      const file = await fetch(
        `${s.url}/api/orgs/acme/forms/apply/submissions/${id}/files/${full.body.answers.cv[0]?.id ?? ''}`,
        { headers: { authorization: `Bearer ${adminToken}` } },
      );
      expect(Buffer.from(await file.arrayBuffer()).equals(pdf)).toBe(true);
    } finally {
      await context.close();
    }
  });
});
