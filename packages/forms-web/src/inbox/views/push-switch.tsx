// The "Enable notifications" switch (docs/forms-web.md#notifications): subscribes this browser with the server's
// VAPID key (GET /api/push/vapid) and stores the subscription for the organisation.
import { useEffect, useState } from 'preact/hooks';
import { type Api, vapidKey } from '../api.js';

type State = 'unsupported' | 'off' | 'on' | 'busy';

function keyBytes(base64url: string): Uint8Array<ArrayBuffer> {
  const b64 = base64url.replace(/-/g, '+').replace(/_/g, '/');
  const bin = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
  const out = new Uint8Array(new ArrayBuffer(bin.length));
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

const supported = () =>
  'serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window;

/**
 * The switch in the header. A problem is handed to `onProblem`, which shows it under the header:
 * in the header it would stay on every page and push the header's buttons about on a phone.
 */
export function PushSwitch(props: { api: Api; onProblem: (message: string | null) => void }) {
  const [state, setState] = useState<State>(supported() ? 'busy' : 'unsupported');
  const setMessage = props.onProblem;

  useEffect(() => {
    if (!supported()) return;
    void (async () => {
      const reg = await navigator.serviceWorker.getRegistration();
      const sub = await reg?.pushManager.getSubscription();
      setState(sub && Notification.permission === 'granted' ? 'on' : 'off');
    })();
  }, []);

  const enable = async () => {
    const permission = await Notification.requestPermission();
    if (permission !== 'granted') {
      throw new Error(
        'Notifications are blocked for this site. Allow them in the browser settings.',
      );
    }
    const reg = await navigator.serviceWorker.register('/sw.js');
    await navigator.serviceWorker.ready;
    const key = await vapidKey();
    const sub = await reg.pushManager.subscribe({
      userVisibleOnly: true,
      applicationServerKey: keyBytes(key),
    });
    await props.api.subscribe(sub.toJSON());
  };

  const disable = async () => {
    const reg = await navigator.serviceWorker.getRegistration();
    const sub = await reg?.pushManager.getSubscription();
    if (!sub) return;
    await props.api.unsubscribe(sub.endpoint);
    await sub.unsubscribe();
  };

  const toggle = async () => {
    const turningOn = state !== 'on';
    setState('busy');
    setMessage(null);
    try {
      await (turningOn ? enable() : disable());
      setState(turningOn ? 'on' : 'off');
    } catch (err) {
      setState(turningOn ? 'off' : 'on');
      const why = err instanceof Error ? err.message : String(err);
      setMessage(`Could not ${turningOn ? 'enable' : 'disable'} notifications: ${why}`);
    }
  };

  if (state === 'unsupported') {
    return <p class="muted small">This browser cannot show notifications.</p>;
  }
  return (
    <div class="push">
      <button
        type="button"
        role="switch"
        class="switch"
        aria-checked={state === 'on'}
        disabled={state === 'busy'}
        onClick={() => void toggle()}
      >
        <span class="track" aria-hidden="true" />
        Enable notifications
      </button>
    </div>
  );
}
