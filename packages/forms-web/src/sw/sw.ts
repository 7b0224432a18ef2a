// The inbox's service worker: shows a notification for each Web Push message and opens the inbox
// on click. The payload is exactly { org, form } and carries no answers; the app fetches those
// when a person opens it (docs/forms.md#web-push).
/// <reference lib="webworker" />
export {};
declare const self: ServiceWorkerGlobalScope;

interface PushPayload {
  org?: unknown;
  form?: unknown;
}

function parse(data: PushMessageData | null): { org: string; form: string } | null {
  if (!data) return null;
  try {
    const p = data.json() as PushPayload;
    if (typeof p.org === 'string' && typeof p.form === 'string')
      return { org: p.org, form: p.form };
  } catch {
    // not JSON: nothing we can name
  }
  return null;
}

self.addEventListener('install', () => {
  void self.skipWaiting();
});
self.addEventListener('activate', (event) => {
  event.waitUntil(self.clients.claim());
});

self.addEventListener('push', (event) => {
  const p = parse(event.data);
  const title = p ? `New submission: ${p.form}` : 'New submission';
  const url = p ? `/#/forms/${encodeURIComponent(p.form)}` : '/#/';
  const tellWindows = async () => {
    const windows = await self.clients.matchAll({ type: 'window' });
    for (const w of windows) w.postMessage({ type: 'havn:submission', ...p });
  };
  event.waitUntil(
    Promise.all([
      tellWindows(),
      self.registration.showNotification(title, {
        body: p ? `In ${p.org}. Open the inbox to read it.` : 'Open the inbox to read it.',
        icon: '/icons/icon-192.png',
        badge: '/icons/icon-192.png',
        // One notification per form: a burst of submissions does not pile up a notification each.
        tag: p ? `havn:${p.org}:${p.form}` : 'havn',
        renotify: true,
        data: { url },
      } as NotificationOptions),
    ]),
  );
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const { url } = event.notification.data as { url: string };
  const target = new URL(url, self.location.origin).href;
  event.waitUntil(
    (async () => {
      const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
      const open = windows.find((w) => new URL(w.url).origin === self.location.origin);
      if (open) {
        // The window routes itself (main.tsx): this works whether or not this worker controls it.
        open.postMessage({ type: 'havn:open', url: target });
        await open.focus().catch(() => null);
      } else await self.clients.openWindow(target);
    })(),
  );
});

// Offline: the app shell comes from the network first and from the cache when offline; the API is
// never cached (answers are personal data and must be fresh).
const SHELL = 'havn-shell-v1';
self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  if (
    event.request.method !== 'GET' ||
    url.origin !== self.location.origin ||
    url.pathname.startsWith('/api/') ||
    url.pathname.startsWith('/f/')
  ) {
    return;
  }
  event.respondWith(
    (async () => {
      const cache = await caches.open(SHELL);
      try {
        const res = await fetch(event.request);
        if (res.ok) await cache.put(event.request, res.clone());
        return res;
      } catch (err) {
        const hit = await cache.match(event.request);
        if (hit) return hit;
        throw err;
      }
    })(),
  );
});
