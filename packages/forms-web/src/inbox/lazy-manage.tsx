// The management views (docs/forms-web.md, "Managing forms") are a chunk of their own, fetched the
// first time one is opened, so the inbox's first load does not carry them.
import { useEffect, useState } from 'preact/hooks';
import type { Api } from './api.js';
import type { ManageRoute } from './manage/manage-view.js';

type ManageModule = typeof import('./manage/manage-view.js');

export function LazyManage(props: { api: Api; route: ManageRoute; onUnauthorized: () => void }) {
  const [mod, setMod] = useState<ManageModule | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    import('./manage/manage-view.js').then(setMod, () => {
      setError('This page could not be loaded. Check your connection and reload.');
    });
  }, []);
  if (error) {
    return (
      <p class="error" role="alert">
        {error}
      </p>
    );
  }
  if (!mod) return <p class="muted">Loading…</p>;
  return <mod.ManageView {...props} />;
}
