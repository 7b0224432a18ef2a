// The inbox web app's entry: render, and register the service worker so the app installs and
// works offline (the notifications switch subscribes through the same registration).
import { render } from 'preact';
import { App } from './app.js';
import { REFRESH_EVENT } from './use-load.js';

const root = document.getElementById('app');
if (root) render(<App />, root);

if ('serviceWorker' in navigator) {
  navigator.serviceWorker.register('/sw.js').catch((err: unknown) => {
    console.warn('service worker registration failed', err);
  });
}

// Keep what is on screen current: when a push arrives (the service worker tells its windows), when
// the tab comes back into view, and every minute while it is visible.
const refresh = () => dispatchEvent(new Event(REFRESH_EVENT));
if ('serviceWorker' in navigator) {
  navigator.serviceWorker.addEventListener(
    'message',
    (event: MessageEvent<{ type?: string; url?: string }>) => {
      if (event.data.type === 'havn:submission') refresh();
      // A notification was clicked while this window was open: show that form's feed.
      const url = event.data.url;
      if (event.data.type === 'havn:open' && url && new URL(url).origin === location.origin) {
        location.assign(url);
      }
    },
  );
}
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'visible') refresh();
});
setInterval(() => {
  if (document.visibilityState === 'visible') refresh();
}, 60_000);
