// The PWA: manifest and icons are served and well-formed, the service worker registers at the
// root scope, and a Web Push message delivered to it (through CDP, as a push service would)
// shows "New submission: <form>" (docs/forms.md#web-push for the { org, form } payload).
import { createECDH, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { inboxUnderTest } from '../test-support/inbox.js';

const inbox = inboxUnderTest();

interface Manifest {
  name: string;
  start_url: string;
  display: string;
  icons: { src: string; sizes: string; type: string }[];
}

describe('PWA', () => {
  it('serves an installable manifest whose icons are PNGs of the declared size', async () => {
    const res = await fetch(`${inbox.stack.url}/manifest.webmanifest`);
    expect(res.status).toBe(200);
    const manifest = (await res.json()) as Manifest;
    expect(manifest.display).toBe('standalone');
    expect(manifest.icons.map((i) => i.sizes)).toEqual(
      expect.arrayContaining(['192x192', '512x512']),
    );
    for (const icon of manifest.icons) {
      const png = Buffer.from(await (await fetch(`${inbox.stack.url}${icon.src}`)).arrayBuffer());
      expect(png.subarray(1, 4).toString('ascii')).toBe('PNG');
      expect(`${png.readUInt32BE(16)}x${png.readUInt32BE(20)}`).toBe(icon.sizes);
    }
  });

  it('shows "New submission: <form>" for a pushed { org, form } and links to the form', async () => {
    const context = await inbox.browser.newContext();
    await context.grantPermissions(['notifications'], { origin: inbox.stack.url });
    const page = await context.newPage();
    await page.goto(inbox.stack.url);
    const scope = await page.evaluate(async () => (await navigator.serviceWorker.ready).scope);
    expect(scope).toBe(`${inbox.stack.url}/`);

    const cdp = await context.newCDPSession(page);
    const registrationId = new Promise<string>((resolve) => {
      cdp.on('ServiceWorker.workerRegistrationUpdated', ({ registrations }) => {
        const mine = registrations.find((r) => r.scopeURL === scope && !r.isDeleted);
        if (mine) resolve(mine.registrationId);
      });
    });
    await cdp.send('ServiceWorker.enable');
    await cdp.send('ServiceWorker.deliverPushMessage', {
      origin: inbox.stack.url,
      registrationId: await registrationId,
      data: JSON.stringify({ org: 'acme', form: 'contact' }),
    });

    const shown = () =>
      page.evaluate(async () => {
        const reg = await navigator.serviceWorker.ready;
        return (await reg.getNotifications()).map((n) => ({
          title: n.title,
          body: n.body,
          url: (n.data as { url: string }).url,
        }));
      });
    await expect.poll(shown, { timeout: 15_000 }).toEqual([
      {
        title: 'New submission: contact',
        body: 'In acme. Open the inbox to read it.',
        url: '/#/forms/contact',
      },
    ]);
    await context.close();
  });

  it('takes an open inbox to the form when its notification is clicked', async () => {
    const context = await inbox.browser.newContext();
    await context.grantPermissions(['notifications'], { origin: inbox.stack.url });
    const page = await context.newPage();
    await page.goto(`${inbox.stack.url}/#/forms`);
    await page.evaluate(async () => navigator.serviceWorker.ready);
    const worker = context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker'));
    // A notification as the push handler shows it, clicked (Chromium has no CDP command to click
    // one, so the worker receives the same event a click dispatches).
    await worker.evaluate(async () => {
      const sw = self as unknown as ServiceWorkerGlobalScope;
      await sw.registration.showNotification('New submission: contact', {
        data: { url: '/#/forms/contact' },
      });
      const [notification] = await sw.registration.getNotifications();
      sw.dispatchEvent(new NotificationEvent('notificationclick', { notification: notification! }));
    });
    await page.waitForURL(`${inbox.stack.url}/#/forms/contact`);
    await context.close();
  });

  it('refreshes the open inbox when a push arrives, without a reload', async () => {
    const context = await inbox.browser.newContext();
    await context.grantPermissions(['notifications'], { origin: inbox.stack.url });
    const page = await context.newPage();
    await page.goto(inbox.stack.url);
    await page.getByLabel('Organisation', { exact: true }).fill(inbox.stack.org);
    await page.getByLabel('Organisation token').fill(inbox.stack.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('No submissions yet.').waitFor(); // the feed has loaded
    await page.evaluate(async () => navigator.serviceWorker.ready);

    await inbox.stack.submit({ name: 'Pushed Person', terms: true }, inbox.stack.url);
    const cdp = await context.newCDPSession(page);
    const registrationId = new Promise<string>((resolve) => {
      cdp.on('ServiceWorker.workerRegistrationUpdated', ({ registrations }) => {
        const mine = registrations.find(
          (r) => r.scopeURL === `${inbox.stack.url}/` && !r.isDeleted,
        );
        if (mine) resolve(mine.registrationId);
      });
    });
    await cdp.send('ServiceWorker.enable');
    await cdp.send('ServiceWorker.deliverPushMessage', {
      origin: inbox.stack.url,
      registrationId: await registrationId,
      data: JSON.stringify({ org: 'acme', form: 'contact' }),
    });
    await page.getByRole('link', { name: /Pushed Person/ }).waitFor();
    expect(await page.locator('ul.feed > li').count()).toBe(1);
    await context.close();
  });

  it('says so when notifications are blocked, and leaves the switch off', async () => {
    const context = await inbox.browser.newContext();
    await context.clearPermissions();
    const page = await context.newPage();
    await page.goto(inbox.stack.url);
    await page.getByLabel('Organisation', { exact: true }).fill(inbox.stack.org);
    await page.getByLabel('Organisation token').fill(inbox.stack.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const toggle = page.getByRole('switch', { name: 'Enable notifications' });
    await expect.poll(() => toggle.isEnabled()).toBe(true);
    await toggle.click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.innerText()).toBe(
      'Could not enable notifications: Notifications are blocked for this site. Allow them in the browser settings.',
    );
    expect(await toggle.getAttribute('aria-checked')).toBe('false');
    await context.close();
  });

  it('subscribes with the server VAPID key, so a submission reaches the push service', async () => {
    // Headless Chromium has no push service; the browser's registration with one is replaced by a
    // loopback push service (speaking RFC 8030: a POST per message), everything else is real.
    const received: { authorization: string; encoding: string }[] = [];
    const pushService = createServer((req, res) => {
      received.push({
        authorization: req.headers.authorization ?? '',
        encoding: String(req.headers['content-encoding']),
      });
      req.resume();
      res.writeHead(201).end();
    });
    await new Promise<void>((resolve) => pushService.listen(0, '127.0.0.1', resolve));
    const endpoint = `http://127.0.0.1:${(pushService.address() as AddressInfo).port}/push/abc`;
    const ecdh = createECDH('prime256v1');
    ecdh.generateKeys();
    const keys = {
      endpoint,
      p256dh: ecdh.getPublicKey().toString('base64url'),
      auth: randomBytes(16).toString('base64url'),
    };
    const context = await inbox.browser.newContext();
    await context.grantPermissions(['notifications'], { origin: inbox.stack.url });
    await context.addInitScript((k: typeof keys) => {
      let current: PushSubscription | null = null;
      const w = window as unknown as { havnKey?: string };
      PushManager.prototype.subscribe = function (options?: PushSubscriptionOptionsInit) {
        const bytes = new Uint8Array(options?.applicationServerKey as ArrayBuffer);
        w.havnKey = btoa(String.fromCharCode(...bytes))
          .replace(/\+/g, '-')
          .replace(/\//g, '_')
          .replace(/=+$/, '');
        const json = {
          endpoint: k.endpoint,
          expirationTime: null,
          keys: { p256dh: k.p256dh, auth: k.auth },
        };
        current = {
          endpoint: k.endpoint,
          toJSON: () => json,
          unsubscribe: () => {
            current = null;
            return Promise.resolve(true);
          },
        } as unknown as PushSubscription;
        return Promise.resolve(current);
      };
      PushManager.prototype.getSubscription = () => Promise.resolve(current);
    }, keys);
    try {
      const page = await context.newPage();
      await page.goto(inbox.stack.url);
      await page.getByLabel('Organisation', { exact: true }).fill(inbox.stack.org);
      await page.getByLabel('Organisation token').fill(inbox.stack.token);
      await page.getByRole('button', { name: 'Sign in' }).click();
      const toggle = page.getByRole('switch', { name: 'Enable notifications' });
      await expect.poll(() => toggle.isEnabled()).toBe(true);
      await toggle.click();
      await expect.poll(() => toggle.getAttribute('aria-checked')).toBe('true');
      const { publicKey } = (await (await fetch(`${inbox.stack.url}/api/push/vapid`)).json()) as {
        publicKey: string;
      };
      expect(await page.evaluate(() => (window as unknown as { havnKey: string }).havnKey)).toBe(
        publicKey,
      );

      await inbox.stack.submit({ name: 'Notify me', terms: true }, inbox.stack.url);
      await expect.poll(() => received.length, { timeout: 15_000 }).toBe(1);
      expect(received[0]!.authorization).toMatch(new RegExp(`^vapid t=.+, k=${publicKey}$`));
      expect(received[0]!.encoding).toBe('aes128gcm');

      await toggle.click(); // off: the server forgets the subscription
      // Unchecked is not enough: the switch is unchecked (and disabled) while the request is on its
      // way; it is enabled again once the server has answered.
      await expect
        .poll(
          async () =>
            `${String(await toggle.isEnabled())} ${String(await toggle.getAttribute('aria-checked'))}`,
        )
        .toBe('true false');
      // The outbox rows are written with the submission: none is a push any more.
      const quiet = await inbox.stack.submit({ name: 'Quiet now', terms: true }, inbox.stack.url);
      const record = (await inbox.stack.submissions()).find((r) => r.id === quiet)!;
      expect(record.deliveries.filter((d) => d.kind === 'push')).toEqual([]);
    } finally {
      await context.close();
      pushService.closeAllConnections();
      await new Promise<void>((resolve) =>
        pushService.close(() => {
          resolve();
        }),
      );
    }
  });
});
