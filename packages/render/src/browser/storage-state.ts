import type { BrowserContext, CDPSession, Page } from 'playwright-core';

// A browser context's saved state (docs/sessions.md#log-in-once-render-many-times), in the shape
// Playwright's `storageState({ indexedDB: true })` writes and `setStorageState` reads: every
// cookie (httpOnly ones included) and, per origin, its localStorage and IndexedDB.

/** Playwright's storage state; `origins[]` also carries `indexedDB` when it was asked for. */
export type StorageState = Awaited<ReturnType<BrowserContext['storageState']>>;
type OriginState = StorageState['origins'][number];

/** How long reading or applying a state may take before it counts as failed. */
export const STATE_TIMEOUT_MS = 30_000;

/** Resolves with `work`, or rejects with `what timed out` past STATE_TIMEOUT_MS. */
export async function withinStateTimeout<T>(work: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new Error(`${what} timed out after ${STATE_TIMEOUT_MS} ms`));
    }, STATE_TIMEOUT_MS);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The context's cookies, localStorage and IndexedDB of every origin it has seen. */
export function readStorageState(context: BrowserContext): Promise<StorageState> {
  return withinStateTimeout(context.storageState({ indexedDB: true }), 'reading the state');
}

/**
 * Runs in a document of the origin: its localStorage and IndexedDB as `o` describes them, in
 * Playwright's shape (the page is new, so there is nothing of the origin's to remove first).
 * A string, not a function's source, so that no build step can rewrite what the page runs.
 */
const RESTORE_ORIGIN = `async (o) => {
  if (location.origin !== o.origin) throw new Error('the page is not at the origin');
  const done = (r) => new Promise((ok, no) => { r.onsuccess = () => ok(r.result); r.onerror = () => no(r.error); });
  localStorage.clear();
  for (const { name, value } of o.localStorage) localStorage.setItem(name, value);
  for (const db of o.indexedDB ?? []) {
    const open = indexedDB.open(db.name, db.version);
    open.onupgradeneeded = () => {
      for (const s of db.stores) {
        const store = open.result.createObjectStore(s.name, { autoIncrement: s.autoIncrement, keyPath: s.keyPathArray ?? s.keyPath });
        for (const i of s.indexes) store.createIndex(i.name, i.keyPathArray ?? i.keyPath, { unique: i.unique, multiEntry: i.multiEntry });
      }
    };
    const handle = await done(open);
    try {
      if (handle.objectStoreNames.length === 0) continue;
      const tx = handle.transaction(handle.objectStoreNames, 'readwrite');
      for (const s of db.stores) for (const r of s.records) tx.objectStore(s.name).add(r.value, r.key);
      await new Promise((ok, no) => { tx.oncomplete = ok; tx.onerror = () => no(tx.error); tx.onabort = () => no(tx.error); });
    } finally {
      handle.close();
    }
  }
}`;

/**
 * Whether every IndexedDB key and value is plain JSON. Playwright writes others (dates, typed
 * arrays, maps) `keyEncoded`/`valueEncoded`, in a form only its own restore script reads.
 */
function plainJson(state: StorageState): boolean {
  type Databases = { stores: { records: object[] }[] }[];
  return state.origins.every((origin) =>
    ((origin as { indexedDB?: Databases }).indexedDB ?? []).every((db) =>
      db.stores.every((store) =>
        store.records.every((r) => !('keyEncoded' in r) && !('valueEncoded' in r)),
      ),
    ),
  );
}

/** How long a Page command waits out a document swap (`acrossSwap`). */
const SWAP_WAIT_MS = 5_000;

/**
 * `command`, a Page command, sent again while the page is between two documents. Chromium moves
 * the page's DevTools handler to the new document only after it commits: until then, Page
 * commands answer "Not attached to an active page" (about one start from a state in fifty, back
 * at about:blank). That answer is a race, not a verdict: ask again, for SWAP_WAIT_MS at most.
 */
export async function acrossSwap<T>(command: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + SWAP_WAIT_MS;
  for (;;) {
    try {
      return await command();
    } catch (err) {
      const swapping = err instanceof Error && /Not attached to an active page/.test(err.message);
      if (!swapping || Date.now() >= deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
}

/**
 * Each origin's storage through `cdp`, the page's own session: the page is sent to the origin,
 * whose document this session answers itself, empty, so that no request leaves the browser (and
 * any other request is refused); one evaluation then writes all of the origin's keys. The page
 * ends at about:blank with no history to go back to, as a page without a state is found.
 */
async function restoreOrigins(cdp: CDPSession, origins: readonly OriginState[]): Promise<void> {
  if (origins.length === 0) return;
  const wanted = new Set(origins.map((o) => o.origin));
  type Paused = { requestId: string; request: { url: string }; resourceType: string };
  const answer = ({ requestId, request, resourceType }: Paused): void => {
    const ours = resourceType === 'Document' && wanted.has(new URL(request.url).origin);
    const sent = ours
      ? cdp.send('Fetch.fulfillRequest', {
          requestId,
          responseCode: 200,
          responseHeaders: [{ name: 'content-type', value: 'text/html' }],
          body: '',
        })
      : cdp.send('Fetch.failRequest', { requestId, errorReason: 'BlockedByClient' });
    sent.catch(() => undefined);
  };
  // Page.navigate can answer before the new document is the page's: each step waits for its
  // commit, `done` telling when a committed URL is the one asked for.
  type Navigated = { frame: { parentId?: string; url: string } };
  const go = async (url: string, done: (committed: string) => boolean): Promise<void> => {
    let onNavigated: ((event: Navigated) => void) | undefined;
    const committed = new Promise<void>((resolve) => {
      onNavigated = ({ frame }: Navigated) => {
        if (frame.parentId === undefined && done(frame.url)) resolve();
      };
      cdp.on('Page.frameNavigated', onNavigated);
    });
    try {
      const { errorText } = await acrossSwap(() => cdp.send('Page.navigate', { url }));
      if (errorText) throw new Error(`the page could not open ${url}: ${errorText}`);
      await committed;
    } finally {
      if (onNavigated) cdp.off('Page.frameNavigated', onNavigated);
    }
  };
  cdp.on('Fetch.requestPaused', answer);
  try {
    await Promise.all([
      cdp.send('Page.enable'),
      cdp.send('Fetch.enable', { patterns: [{ urlPattern: '*' }] }),
    ]);
    for (const origin of origins) {
      await go(origin.origin, (url) => new URL(url).origin === origin.origin);
      const { exceptionDetails } = await cdp.send('Runtime.evaluate', {
        expression: `(${RESTORE_ORIGIN})(${JSON.stringify(origin)})`,
        awaitPromise: true,
        returnByValue: true,
      });
      if (exceptionDetails) throw new Error(`restoring ${origin.origin} failed`);
    }
    await go('about:blank', (url) => url === 'about:blank');
    await acrossSwap(() => cdp.send('Page.resetNavigationHistory'));
  } finally {
    cdp.off('Fetch.requestPaused', answer);
    await cdp.send('Fetch.disable').catch(() => undefined);
  }
}

/**
 * Puts `state` into a fresh context through `page`, its one page at about:blank: the cookies in
 * one call alongside each origin's storage written through the page itself, which Playwright's
 * `setStorageState` does through a page it opens and closes, with its own interception, at
 * several times the cost (docs/benchmarks.md#sessions-the-cdp-door). A state with IndexedDB
 * values that are not plain JSON takes Playwright's path, whose script reads them. A failure
 * says why with every cookie value blanked: the browser's message could quote one, and it ends
 * up in the service log.
 */
export async function applyStorageState(
  context: BrowserContext,
  page: Page,
  state: StorageState,
): Promise<void> {
  const apply = async (): Promise<void> => {
    if (!plainJson(state)) {
      await context.setStorageState(state);
      return;
    }
    const cdp = await context.newCDPSession(page);
    try {
      await Promise.all([context.addCookies(state.cookies), restoreOrigins(cdp, state.origins)]);
    } finally {
      await cdp.detach().catch(() => undefined);
    }
  };
  try {
    await withinStateTimeout(apply(), 'applying the state');
  } catch (err) {
    let reason = err instanceof Error ? err.message : String(err);
    for (const { value } of state.cookies) if (value) reason = reason.split(value).join('<cookie>');
    // eslint-disable-next-line preserve-caught-error -- its message may quote a cookie, and a cause would carry it into a log
    throw new Error(`the browser could not apply the saved state: ${reason}`);
  }
}
