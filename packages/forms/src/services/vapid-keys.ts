import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import webpush from 'web-push';

export interface VapidKeys {
  publicKey: string;
  privateKey: string;
}

/**
 * The server's VAPID key pair, generated into USER_DATA_DIR on first start (spec 2 §4.5) with mode
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
  const keys = JSON.parse(readFileSync(file, 'utf8')) as Partial<VapidKeys>;
  if (typeof keys.publicKey !== 'string' || typeof keys.privateKey !== 'string') {
    throw new Error(`${file} does not hold a VAPID key pair; remove it to generate a new one`);
  }
  return { publicKey: keys.publicKey, privateKey: keys.privateKey };
}
