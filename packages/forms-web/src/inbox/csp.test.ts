// The inbox's Content-Security-Policy (docs/forms.md#page-headers) in real Chromium against the
// real forms server: no inline script runs, neither in the inbox nor in the form preview's frame
// (which inherits the policy), and the preview, whose fetch shim is a served file, still works.
import type { Frame, Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { inboxUnderTest } from '../test-support/inbox.js';

const inbox = inboxUnderTest();

/** Injects an inline script into `where`; what it did, and what the policy reported. */
async function inject(where: Page | Frame): Promise<{ ran: boolean; refused: string | null }> {
  return where.evaluate(
    () =>
      new Promise<{ ran: boolean; refused: string | null }>((resolve) => {
        document.addEventListener(
          'securitypolicyviolation',
          (e) => {
            resolve({
              ran: (window as { injected?: boolean }).injected === true,
              refused: e.violatedDirective,
            });
          },
          { once: true },
        );
        const script = document.createElement('script');
        script.textContent = 'window.injected = true;';
        document.head.append(script);
        // An inline script runs at once when allowed: no report then.
        if ((window as { injected?: boolean }).injected === true)
          resolve({ ran: true, refused: null });
      }),
  );
}

it('runs no inline script in the inbox or its preview, and the preview still shows the draft', async () => {
  const page = await inbox.browser.newPage();
  try {
    const res = await page.goto(inbox.stack.url);
    expect(res?.headers()['content-security-policy']).toMatch(/^script-src 'self';/);
    await page.getByLabel('Organisation', { exact: true }).fill(inbox.stack.org);
    await page.getByLabel('Organisation token').fill(inbox.stack.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'Forms', exact: true }).waitFor();
    expect(await inject(page)).toEqual({ ran: false, refused: 'script-src-elem' });

    // The preview: the runtime shows the draft, and a send is answered by the shim.
    await page.goto(`${inbox.stack.url}/#/forms/contact/settings/definition`);
    await page.locator('#b-q0-label').fill('Your full name');
    await page.locator('.preview[aria-busy="false"]').waitFor();
    const preview = page.frameLocator('iframe[title="Preview of the form"]');
    await preview.getByRole('textbox', { name: 'Your full name' }).fill('Ada');
    const frame = page.frames().find((f) => f.url() === 'about:srcdoc');
    expect(frame).toBeDefined();
    expect(await inject(frame!)).toEqual({ ran: false, refused: 'script-src-elem' });
    const before = (await inbox.stack.submissions()).length;
    await preview.getByRole('textbox', { name: 'Email' }).fill('ada@example.com');
    await preview.getByRole('radio', { name: 'Sales' }).check();
    await preview.getByRole('checkbox', { name: 'I agree to the terms' }).check();
    await preview.getByRole('button', { name: 'Send' }).click();
    await preview.getByText('Thank you, we will be in touch.').waitFor();
    expect((await inbox.stack.submissions()).length).toBe(before); // the preview stored nothing
  } finally {
    await page.close();
  }
});
