// The inbox's spam view (docs/forms-web.md#spam) in real Chromium against the real forms server:
// a submission the honeypot caught is listed under Spam, "Not spam" moves it to the form's
// submissions and a loopback webhook receiver gets it; by keyboard alone, and on a phone in dark
// mode, with no serious or critical axe violation.
import type { BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations } from '../test-support/axe.js';
import { PHONE } from '../test-support/browser.js';
import { startReceiver } from '../test-support/receiver.js';
import { type Site, startSite } from '../test-support/site.js';
import { inboxUnderTest } from '../test-support/inbox.js';

let site: Site;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  site = await startSite('localhost');
  receiver = await startReceiver();
});
const inbox = inboxUnderTest(() => [site.origin]);
beforeAll(async () => {
  await inbox.stack.putContactForm([site.origin], undefined, [
    { url: receiver.url, secret: 'whsec_c2VjcmV0' },
  ]);
});

afterAll(async () => {
  await site.close();
  await receiver.close();
});

/** A submission whose honeypot is filled, as a form-filling bot sends it: stored as spam. */
async function botSubmission(name: string): Promise<string> {
  const res = await fetch(`${inbox.stack.url}/api/orgs/acme/forms/contact/submissions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: site.origin },
    body: JSON.stringify({ name, email: 'bot@example.com', submitFields: { _gotcha: 'filled' } }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { id: string }).id;
}

async function openInbox(hash: string, options: BrowserContextOptions = {}): Promise<Page> {
  const page = await inbox.openInbox(options);
  await page.goto(`${inbox.stack.url}/${hash}`);
  return page;
}

/** Presses Tab until the focused element has this accessible text; fails after 40 stops. */
async function tabTo(page: Page, text: string): Promise<void> {
  for (let i = 0; i < 40; i++) {
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => {
      const el = document.activeElement;
      const label = el instanceof HTMLInputElement ? el.labels?.[0]?.textContent : undefined;
      return el?.getAttribute('aria-label') ?? label ?? el?.textContent;
    });
    if (focused?.trim().startsWith(text)) return;
  }
  throw new Error(`no tab stop named ${text}`);
}

const delivered = async (id: string) => {
  for (let i = 0; i < 200; i++) {
    if (receiver.received.some((r) => r.body.includes(id))) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
};

describe('spam view', () => {
  it('lists spam apart and "Not spam" moves it to the feed and sends it on, by keyboard alone', async () => {
    const id = await botSubmission('Keyboard Bot');
    const page = await openInbox('#/forms/contact');
    await page.getByRole('heading', { name: 'Contact' }).waitFor();
    // The feed leaves spam out.
    await page.getByRole('navigation', { name: 'Form views' }).waitFor();
    expect(await page.getByText('Keyboard Bot').count()).toBe(0);

    await tabTo(page, 'Spam');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Spam' }).waitFor();
    await page.getByText('Keyboard Bot').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    expect(receiver.received.some((r) => r.body.includes(id))).toBe(false);

    await tabTo(page, 'Not spam: Keyboard Bot');
    await page.keyboard.press('Enter');
    await page.getByRole('status').getByText('Moved to the submissions and sent on').waitFor();
    expect(await page.getByText('Keyboard Bot').count()).toBe(0);
    expect(await delivered(id)).toBe(true);
    const webhook = receiver.received.find((r) => r.body.includes(id));
    expect((JSON.parse(webhook!.body) as { data: { spam: boolean } }).data.spam).toBe(false);

    await tabTo(page, 'Submissions');
    await page.keyboard.press('Enter');
    await page.getByText('Keyboard Bot').waitFor();

    // The form's protection is chosen on the same page: proof of work on, by keyboard.
    await tabTo(page, 'Spam');
    await page.keyboard.press('Enter');
    await page.getByRole('group', { name: 'Spam protection' }).waitFor();
    await tabTo(page, 'Honeypot only.');
    await page.keyboard.press('ArrowDown');
    expect(await page.getByRole('radio', { name: /proof of work/ }).isChecked()).toBe(true);
    await tabTo(page, 'Save');
    await page.keyboard.press('Enter');
    await page.getByText('Saved: proof of work is on.').waitFor();
    const { form } = await inbox.stack.api<{ form: { spamProtection: string } }>(
      'GET',
      '/api/orgs/acme/forms/contact',
    );
    expect(form.spamProtection).toBe('pow');
    await page.close();
  });

  it('pages back through older spam', async () => {
    const oldest = await botSubmission('Oldest Bot');
    for (let i = 0; i < 50; i++) await botSubmission(`Newer Bot ${i}`);
    const page = await openInbox('#/forms/contact/spam');
    await page.getByText('Newer Bot 49').waitFor();
    expect(await page.getByText('Oldest Bot').count()).toBe(0);
    await page.getByRole('button', { name: 'Show older spam' }).click();
    await page.getByText('Oldest Bot').waitFor();
    await page.getByRole('button', { name: 'Not spam: Oldest Bot' }).click();
    expect(await delivered(oldest)).toBe(true);
    await page.close();
  });

  it('works on a phone in dark mode, without sideways scrolling or axe violations', async () => {
    const id = await botSubmission(
      'Phone Bot with a rather long name that must not widen the page',
    );
    const page = await openInbox('#/forms/contact/spam', {
      viewport: { width: 360, height: 740 },
      isMobile: true,
      hasTouch: true,
      colorScheme: 'dark',
    });
    await page.getByText('Phone Bot').waitFor();
    const fits = () =>
      page.evaluate(
        () => document.documentElement.scrollWidth <= document.documentElement.clientWidth,
      );
    expect(await fits()).toBe(true);
    expect(await page.evaluate(() => matchMedia('(prefers-color-scheme: dark)').matches)).toBe(
      true,
    );
    expect(await axeViolations(page)).toEqual([]);

    // The submission's own page offers "Not spam" too.
    await page.getByRole('link', { name: /Phone Bot/ }).tap();
    await page.getByText('This submission is in the spam').waitFor();
    expect(await fits()).toBe(true);
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Not spam' }).tap();
    await page.getByText('This submission is in the spam').waitFor({ state: 'detached' });
    expect(await delivered(id)).toBe(true);
    await page.close();
  });

  it('puts each spam-protection radio right beside its label, on a desktop and on a phone', async () => {
    for (const options of [{ viewport: { width: 1280, height: 800 } }, PHONE]) {
      const page = await openInbox('#/forms/contact/spam', options);
      for (const name of ['Honeypot only', 'Honeypot and proof of work']) {
        const radio = page.getByRole('radio', { name: new RegExp(`^${name}`) });
        await radio.waitFor();
        const box = await radio.boundingBox();
        const text = await page
          .locator('.protection .choice > span', { hasText: name })
          .first()
          .boundingBox();
        if (!box || !text) throw new Error(`${name}: not laid out`);
        // A radio's own size, not the width of the box (it was 494 px wide once).
        expect(box.width, name).toBeLessThan(30);
        // Its label starts just after it, on the same line.
        const gap = text.x - (box.x + box.width);
        expect(gap, name).toBeGreaterThanOrEqual(0);
        expect(gap, name).toBeLessThan(16);
        const firstLine = text.y + 14;
        expect(box.y, name).toBeLessThan(firstLine);
        expect(box.y + box.height, name).toBeGreaterThan(text.y);
      }
      await page.close();
    }
  });
});
