// The inbox web app's entry: render, and register the service worker so the app installs and
// works offline (the notifications switch subscribes through the same registration).
import { render } from 'preact';
import { App } from './app.js';

const root = document.getElementById('app');
if (root) render(<App />, root);

if ('serviceWorker' in navigator) {
  navigator.serviceWorker.register('/sw.js').catch((err: unknown) => {
    console.warn('service worker registration failed', err);
  });
}
