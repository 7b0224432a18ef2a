// Loads data for a view and re-loads it on demand; a 401 signs the person out (the token was
// revoked or mistyped), everything else is shown where the data would be.
import { useCallback, useEffect, useState } from 'preact/hooks';
import { ApiError } from './api.js';

export const REFRESH_EVENT = 'havn:refresh';

export interface Loaded<T> {
  data: T | undefined;
  error: string | null;
  reload: () => void;
}

export function useLoad<T>(
  load: () => Promise<T>,
  deps: unknown[],
  onUnauthorized: () => void,
): Loaded<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const [tick, setTick] = useState(0);
  // The app asks every view to refresh when a push arrives or the tab comes back (main.tsx).
  useEffect(() => {
    const refresh = () => {
      setTick((t) => t + 1);
    };
    addEventListener(REFRESH_EVENT, refresh);
    return () => {
      removeEventListener(REFRESH_EVENT, refresh);
    };
  }, []);
  useEffect(() => {
    let live = true;
    load().then(
      (value) => {
        if (!live) return;
        setData(value);
        setError(null);
      },
      (err: unknown) => {
        if (!live) return;
        if (err instanceof ApiError && err.status === 401) onUnauthorized();
        setError(err instanceof Error ? err.message : String(err));
      },
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  const reload = useCallback(() => {
    setTick((t) => t + 1);
  }, []);
  return { data, error, reload };
}
