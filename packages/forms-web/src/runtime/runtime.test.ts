// The embeddable runtime in real Chromium, embedded on another loopback origin (localhost) than
// the forms server (127.0.0.1), against the real forms server (docs/forms.md).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { axeViolations } from '../test-support/axe.js';
import { launchBrowser } from '../test-support/browser.js';
import { ensureBuilt } from '../test-support/build.js';
import { embedPage, type Site, startSite } from '../test-support/site.js';
import { type Stack, startStack } from '../test-support/stack.js';

const axeSource = readFileSync(
  createRequire(import.meta.url).resolve('axe-core/axe.min.js'),
  'utf8',
);

let browser: Browser;
let site: Site;
let stack: Stack;
let context: BrowserContext;

beforeAll(async () => {
  ensureBuilt();
  site = await startSite('localhost');
  stack = await startStack([site.origin]);
  browser = await launchBrowser();
  context = await browser.newContext();
});

// A fresh browser profile for each test: the runtime keeps unsent answers in localStorage
// (docs/forms-web.md#resumable-answers), which would carry one test's typing into the next.
beforeEach(async () => {
  await context.close();
  // en-US: the keyboard test types the date control's mm/dd/yyyy segments.
  context = await browser.newContext({ locale: 'en-US' });
});

afterAll(async () => {
  await browser.close();
  await site.close();
  await stack.close();
});

async function openEmbed(path: string, head = '', body = ''): Promise<Page> {
  const url = site.page(
    path,
    embedPage(`${stack.url}/runtime.js`, stack.definitionUrl, head, body),
  );
  const page = await context.newPage();
  await page.goto(url);
  await page.getByRole('heading', { name: 'Contact us' }).waitFor();
  return page;
}

/** The id of the focused control inside the form's shadow root. */
function focusedId(page: Page): Promise<string | undefined> {
  return page.evaluate(() => document.activeElement?.shadowRoot?.activeElement?.id);
}

async function fillByKeyboard(page: Page): Promise<void> {
  const k = page.keyboard;
  await page.locator('h1').click(); // start from the host page, before the form
  await k.press('Tab');
  expect(await focusedId(page)).toBe('q0');
  await k.type('Ada Lovelace');
  await k.press('Tab');
  await k.type('ada@example.com');
  await k.press('Tab');
  await k.type('Please call me about seats.');
  await k.press('Tab');
  await k.type('12');
  await k.press('Tab'); // into the radio group: arrows choose
  expect(await focusedId(page)).toBe('q4-0');
  await k.press('ArrowDown');
  await k.press('Tab'); // the checkbox group: space ticks
  await k.press('Space');
  await k.press('Tab');
  await k.press('Tab');
  expect(await focusedId(page)).toBe('q6');
  await k.type('03152026'); // the date control takes mm/dd/yyyy in the en-US locale
  // Chromium's date control keeps a tab stop of its own after the year segment.
  for (let i = 0; i < 3 && (await focusedId(page)) === 'q6'; i++) await k.press('Tab');
  expect(await focusedId(page)).toBe('q7');
  await k.press('Space');
}

describe('embedded runtime', () => {
  it('is filled with the keyboard alone and posts the flat answers map with submitFields', async () => {
    const before = (await stack.submissions()).length;
    const page = await openEmbed('/keyboard');
    await fillByKeyboard(page);
    await page.keyboard.press('Tab'); // the honeypot is skipped: the next stop is Send
    expect(
      await page.evaluate(() => document.activeElement?.shadowRoot?.activeElement?.textContent),
    ).toBe('Send');
    await page.keyboard.press('Enter');
    await page.getByText('Thank you, we will be in touch.').waitFor();
    const all = await stack.submissions();
    expect(all.length).toBe(before + 1);
    const stored = all[0]!;
    expect(JSON.parse(stored.body)).toEqual({
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      message: 'Please call me about seats.',
      seats: 12,
      topic: 'support',
      channels: ['email'],
      start: '2026-03-15',
      terms: true,
      submitFields: { source: 'website', _gotcha: '' },
    });
    expect(stored.origin).toBe(site.origin);
    expect(stored.spam).toBe(false);
    await page.close();
  });

  it('shows required and format errors tied to their controls, and clears them when fixed', async () => {
    const before = (await stack.submissions()).length;
    const page = await openEmbed('/validation');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByRole('alert').getByText('4 answers need attention.').waitFor();
    const name = page.getByLabel('Your name');
    await expect.poll(() => focusedId(page)).toBe('q0');
    expect(await name.getAttribute('aria-invalid')).toBe('true');
    expect(await name.getAttribute('aria-describedby')).toBe('q0-error');
    expect(await page.locator('#q0-error').textContent()).toBe('This field is required.');
    expect(await page.locator('#q4-error').textContent()).toBe('Choose an option.');
    expect(await page.locator('#q7-error').textContent()).toBe('Tick this box to continue.');
    // The choice group's fieldset points at its error, and its legend names the group.
    expect(await page.locator('fieldset#q4').getAttribute('aria-describedby')).toBe('q4-error');

    await page.getByRole('textbox', { name: 'Email' }).fill('ada-at-example');
    await page.getByLabel('Message').fill('short');
    await page.getByLabel('Seats').fill('900');
    await page.getByRole('button', { name: 'Send' }).click();
    expect(await page.locator('#q1-error').textContent()).toBe(
      'Enter an email address like name@example.com.',
    );
    expect(await page.locator('#q2-error').textContent()).toBe('Use at least 10 characters.');
    expect(await page.getByLabel('Message').getAttribute('aria-describedby')).toBe(
      'q2-help q2-error',
    );
    expect(await page.locator('#q3-error').textContent()).toBe('Enter a number of at most 500.');

    await page.getByRole('textbox', { name: 'Email' }).fill('ada@example.com');
    expect(await page.locator('#q1-error').textContent()).toBe('');
    expect(await page.getByRole('textbox', { name: 'Email' }).getAttribute('aria-invalid')).toBe(
      'false',
    );
    expect((await stack.submissions()).length).toBe(before);
    await page.close();
  });

  it('keeps every answer and offers a retry when the server is down, then sends on retry', async () => {
    const page = await openEmbed('/down');
    await page.getByLabel('Your name').fill('Grace Hopper');
    await page.getByRole('textbox', { name: 'Email' }).fill('grace@example.com');
    await page.getByLabel('Support').check();
    await page.getByLabel('I agree to the terms').check();
    await stack.stop();
    try {
      await page.getByRole('button', { name: 'Send' }).click();
      await page
        .getByText('Your answers could not be sent because of a network or server problem.', {
          exact: false,
        })
        .waitFor();
      expect(await page.getByLabel('Your name').inputValue()).toBe('Grace Hopper');
      expect(await page.getByRole('textbox', { name: 'Email' }).inputValue()).toBe(
        'grace@example.com',
      );
      expect(await page.getByLabel('Support').isChecked()).toBe(true);
    } finally {
      await stack.restart();
    }
    await page.getByRole('button', { name: 'Try again' }).click();
    await page.getByText('Thank you, we will be in touch.').waitFor();
    expect(JSON.parse((await stack.submissions())[0]!.body)).toMatchObject({
      name: 'Grace Hopper',
      topic: 'support',
    });
    await page.close();
  });

  it('says the form could not load while offline, and shows it once back online', async () => {
    const offline = await browser.newContext({ locale: 'en-US' });
    const page = await offline.newPage();
    const url = site.page('/offline', embedPage(`${stack.url}/runtime.js`, stack.definitionUrl));
    await page.goto(url);
    await page.getByRole('heading', { name: 'Acme Ltd' }).waitFor();
    // The network goes away, then a second copy of the runtime (inline, so it needs no
    // download) tries to load the form.
    const source = await (await fetch(`${stack.url}/runtime.js`)).text();
    await offline.setOffline(true);
    await page.evaluate(
      ({ source, form }) => {
        const slot = document.createElement('section');
        slot.id = 'again';
        const again = document.createElement('script');
        again.dataset.form = form;
        again.dataset.target = '#again';
        again.textContent = source;
        document.body.append(slot, again);
      },
      { source, form: stack.definitionUrl },
    );
    await page
      .locator('#again')
      .getByText('The form could not be loaded. Check your connection and try again.')
      .waitFor();
    await offline.setOffline(false);
    await page.locator('#again').getByRole('heading', { name: 'Contact us' }).waitFor();
    await offline.close();
  });

  it('says clearly when the site is not an allowed origin of the form', async () => {
    const other = await startSite('127.0.0.1'); // not in allowedOrigins
    try {
      const page = await context.newPage();
      await page.goto(other.page('/', embedPage(`${stack.url}/runtime.js`, stack.definitionUrl)));
      await page
        .getByRole('alert')
        .getByText(
          `This form cannot be used on this website: its owner has not allowed ${other.origin}.`,
        )
        .waitFor();
      await page.close();
    } finally {
      await other.close();
    }
  });

  it('keeps host styles out, keeps its own styles in, and takes theme custom properties', async () => {
    const hostCss = `<style>
      label { color: rgb(255, 0, 0); font-family: serif; }
      input { background: rgb(255, 0, 0) !important; }
      main { font-size: 40px; color: rgb(0, 128, 0); }
      .havn-form { --havn-accent: rgb(128, 0, 128); }
    </style>`;
    const page = await openEmbed('/styles', hostCss, '<button class="host">Host button</button>');
    const label = page.getByText('Your name');
    expect(await label.evaluate((e) => getComputedStyle(e).color)).not.toBe('rgb(255, 0, 0)');
    expect(await label.evaluate((e) => getComputedStyle(e).fontSize)).toBe('16px');
    expect(
      await page.getByLabel('Your name').evaluate((e) => getComputedStyle(e).backgroundColor),
    ).toBe('rgb(255, 255, 255)');
    expect(
      await page
        .getByRole('button', { name: 'Send' })
        .evaluate((e) => getComputedStyle(e).backgroundColor),
    ).toBe('rgb(128, 0, 128)');
    // The runtime's button style does not reach the host page's own button.
    expect(
      await page.locator('button.host').evaluate((e) => getComputedStyle(e).backgroundColor),
    ).not.toBe('rgb(128, 0, 128)');
    await page.close();
  });

  it('shows a visible focus ring on keyboard focus', async () => {
    const page = await openEmbed('/focus');
    await page.locator('h1').click();
    await page.keyboard.press('Tab');
    const outline = await page
      .getByLabel('Your name')
      .evaluate((e) => getComputedStyle(e).outlineStyle + ' ' + getComputedStyle(e).outlineWidth);
    expect(outline).toBe('solid 3px');
    await page.close();
  });

  it('renders into data-target, even one later in the page, and announces the submission', async () => {
    const html = `<!doctype html><html lang="en"><head><title>Acme</title></head><body><main>
<h1>Acme</h1><script async src="${stack.url}/runtime.js" data-form="${stack.definitionUrl}"
data-target="#slot"></script><p>Between</p><section id="slot"></section></main>
<script>document.addEventListener('havn:submitted', (e) => { document.title = 'sent ' + e.detail.id; });</script>
</body></html>`;
    const page = await context.newPage();
    await page.goto(site.page('/target', html));
    await page.locator('#slot').getByRole('heading', { name: 'Contact us' }).waitFor();
    await page.getByRole('textbox', { name: 'Your name' }).fill('Target Test');
    await page.getByRole('textbox', { name: 'Email' }).fill('t@example.com');
    await page.getByRole('radio', { name: 'Sales' }).check();
    await page.getByRole('checkbox', { name: 'I agree to the terms' }).check();
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByText('Thank you, we will be in touch.').waitFor();
    const [latest] = await stack.submissions();
    await expect.poll(() => page.title()).toBe(`sent ${latest!.id}`);
    await page.close();
  });

  it('uploads a 3 MB PDF and a PNG with the answers, reporting progress (docs/forms.md#file-uploads)', async () => {
    const pdf = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(3 * 1024 * 1024, 0x20)]);
    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
      'base64',
    );
    const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
    await stack.putContactForm([site.origin], {
      intro: { title: 'Contact us' },
      questions: [
        { logicalName: 'name', type: 'text', label: 'Your name', required: true },
        { logicalName: 'cv', type: 'file', label: 'CV', accept: ['.pdf'], required: true },
        { logicalName: 'shot', type: 'file', label: 'Screenshot', accept: ['image/*'] },
      ],
    });
    try {
      const page = await openEmbed(
        '/files',
        '',
        `<script>window.progress = []; document.addEventListener('havn:progress', (e) => window.progress.push(e.detail.fraction));</script>`,
      );
      await page.getByRole('textbox', { name: 'Your name' }).fill('Ada');
      // Required: no file, no send.
      await page.getByRole('button', { name: 'Send' }).click();
      await page.getByText('This field is required.').waitFor();
      await page.getByLabel('CV').setInputFiles({
        name: 'cv.pdf',
        mimeType: 'application/pdf',
        buffer: pdf,
      });
      await page.getByLabel('Screenshot').setInputFiles({
        name: 'shot.png',
        mimeType: 'image/png',
        buffer: png,
      });
      await page.getByRole('button', { name: 'Send' }).click();
      await page.getByText('Thank you, your answers have been sent.').waitFor();
      const [latest] = await stack.submissions();
      expect(latest?.answers).toMatchObject({
        name: 'Ada',
        cv: [{ name: 'cv.pdf', size: pdf.length, type: 'application/pdf', sha256: sha256(pdf) }],
        shot: [{ name: 'shot.png', size: png.length, type: 'image/png', sha256: sha256(png) }],
      });
      const progress = await page.evaluate(
        () => (window as unknown as { progress: number[] }).progress,
      );
      expect(progress.at(-1)).toBe(1);
      await page.close();
    } finally {
      await stack.putContactForm([site.origin]);
    }
  });

  it('a file question works from the keyboard, names its error, and is axe clean', async () => {
    await stack.putContactForm([site.origin], {
      intro: { title: 'Contact us' },
      questions: [
        { logicalName: 'name', type: 'text', label: 'Your name', required: true },
        { logicalName: 'cv', type: 'file', label: 'CV', accept: ['.pdf'], required: true },
      ],
    });
    try {
      const page = await openEmbed('/files-keyboard');
      const cv = page.getByLabel('CV');
      const cvId = await cv.getAttribute('id');
      expect(await axeViolations(page)).toEqual([]);
      await page.getByRole('textbox', { name: 'Your name' }).fill('Ada');
      await page.keyboard.press('Tab');
      expect(await focusedId(page)).toBe(cvId);
      // Tab on to Send and press it with no file: the picker is focused, invalid, and its error
      // is read with it.
      await page.keyboard.press('Tab');
      await page.keyboard.press('Enter');
      await page.getByText('This field is required.').waitFor();
      expect(await focusedId(page)).toBe(cvId);
      expect(await cv.getAttribute('aria-invalid')).toBe('true');
      const describedBy = (await cv.getAttribute('aria-describedby')) ?? '';
      // Playwright's CSS reaches into the form's open shadow root.
      const described = await Promise.all(
        describedBy.split(' ').map((id) => page.locator(`#${id}`).textContent()),
      );
      expect(described).toContain('This field is required.');
      expect(await axeViolations(page)).toEqual([]);
      await cv.setInputFiles({
        name: 'cv.pdf',
        mimeType: 'application/pdf',
        buffer: Buffer.from('%PDF-1.4\n%%EOF\n'),
      });
      await page.getByRole('button', { name: 'Send' }).press('Enter');
      await page.getByText('Thank you, your answers have been sent.').waitFor();
      await page.close();
    } finally {
      await stack.putContactForm([site.origin]);
    }
  });

  it('renders the hosted page /f/<org>/<form> on its own', async () => {
    const page = await context.newPage();
    await page.goto(`${stack.url}/f/acme/contact`);
    await page.getByRole('heading', { name: 'Contact us' }).waitFor();
    expect(await page.getByRole('textbox', { name: 'Email' }).getAttribute('type')).toBe('email');
    expect(await page.title()).toBe('Contact us');
    // It posts from the server's own origin, which the form allows.
    await page.getByRole('textbox', { name: 'Your name' }).fill('Hosted Visitor');
    await page.getByRole('textbox', { name: 'Email' }).fill('hosted@example.com');
    await page.getByRole('radio', { name: 'Support' }).check();
    await page.getByRole('checkbox', { name: 'I agree to the terms' }).check();
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByText('Thank you, we will be in touch.').waitFor();
    expect((await stack.submissions())[0]!.origin).toBe(stack.url);
    await page.close();
  });

  it('has no serious or critical accessibility violations (axe-core), before and after errors', async () => {
    const page = await openEmbed('/axe');
    await page.addScriptTag({ content: axeSource });
    const run = () =>
      page.evaluate(async () => {
        const axe = (window as unknown as { axe: { run: (ctx: Document) => Promise<AxeResult> } })
          .axe;
        const result = await axe.run(document);
        return result.violations
          .filter((v) => v.impact === 'serious' || v.impact === 'critical')
          .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
      });
    expect(await run()).toEqual([]);
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByRole('alert').getByText('answers need attention').waitFor();
    expect(await run()).toEqual([]);
    await page.close();
  });
});

interface AxeResult {
  violations: { id: string; impact: string | null; nodes: { target: string[] }[] }[];
}
