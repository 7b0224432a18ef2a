// The organisation's unread count beside "All submissions", and on the installed app's icon where
// the platform supports app badges. It refreshes with everything else (use-load.ts).
import { useEffect } from 'preact/hooks';
import type { Api } from '../api.js';
import { useLoad } from '../use-load.js';

export function UnreadBadge(props: { api: Api }) {
  const { data } = useLoad(
    async () => (await props.api.forms()).reduce((n, f) => n + f.unread, 0),
    [props.api],
    () => {
      // the page's own view handles a 401
    },
  );
  useEffect(() => {
    if (data === undefined || !('setAppBadge' in navigator)) return;
    const done = data > 0 ? navigator.setAppBadge(data) : navigator.clearAppBadge();
    done.catch(() => undefined); // not installed, or the platform has no badges
  }, [data]);
  if (!data) return null;
  return (
    <span class="badge nav-badge">
      {data}
      <span class="sr"> unread</span>
    </span>
  );
}
