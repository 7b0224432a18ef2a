import type { BrowserContext } from 'playwright-core';

// A browser context's saved state (docs/sessions.md#log-in-once-render-many-times), in the shape
// Playwright's `storageState({ indexedDB: true })` writes and `setStorageState` reads: every
// cookie (httpOnly ones included) and, per origin, its localStorage and IndexedDB.

/** Playwright's storage state; `origins[]` also carries `indexedDB` when it was asked for. */
export type StorageState = Awaited<ReturnType<BrowserContext['storageState']>>;

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
 * Puts `state` into the context, replacing what it held. Playwright opens a page of its own and
 * answers every request of it itself, so applying touches no network. A failure names no cookie:
 * Playwright's message could quote one, and it would end up in a log.
 */
export async function applyStorageState(
  context: BrowserContext,
  state: StorageState,
): Promise<void> {
  try {
    await withinStateTimeout(context.setStorageState(state), 'applying the state');
  } catch (err) {
    if (err instanceof Error && /timed out/.test(err.message)) throw err;
    // eslint-disable-next-line preserve-caught-error -- its message may quote a cookie, and a cause would carry it into a log
    throw new Error('the browser refused the saved state');
  }
}
