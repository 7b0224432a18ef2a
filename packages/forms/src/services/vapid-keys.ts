import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import webpush from 'web-push';
import type { Store } from '../store/store.js';

export interface VapidKeys {
  publicKey: string;
  privateKey: string;
}

/**
 * The server's VAPID key pair, generated into USER_DATA_DIR on first start (docs/forms.md#web-push) with mode
 * 0600. Created with O_EXCL so two processes starting at once cannot end up with different keys.
 */
export function loadOrCreateVapidKeys(userDataDir: string): VapidKeys {
  mkdirSync(userDataDir, { recursive: true, mode: 0o700 });
  const file = join(userDataDir, 'vapid.json');
  try {
    writeFileSync(file, JSON.stringify(webpush.generateVAPIDKeys()), { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  return parseKeys(readFileSync(file, 'utf8'), file);
}

function parseKeys(json: string, where: string): VapidKeys {
  const keys = JSON.parse(json) as Partial<VapidKeys>;
  if (typeof keys.publicKey !== 'string' || typeof keys.privateKey !== 'string') {
    throw new Error(`${where} does not hold a VAPID key pair; remove it to generate a new one`);
  }
  return { publicKey: keys.publicKey, privateKey: keys.privateKey };
}

/**
 * The VAPID key pair of this store: in USER_DATA_DIR for the embedded store, in the database when
 * several instances share it, generated once even when two start together (every browser's
 * subscription is bound to one key: docs/forms.md#several-instances).
 */
export async function vapidKeysOf(store: Store, userDataDir: string): Promise<VapidKeys> {
  if (!store.shared) return loadOrCreateVapidKeys(userDataDir);
  const json = await store.settings.getOrCreate('vapid-keys', () =>
    JSON.stringify(webpush.generateVAPIDKeys()),
  );
  return parseKeys(json, 'the settings row vapid-keys');
}
