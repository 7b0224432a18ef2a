// The package's public surface: embed or test the forms server without spawning it.
import { submissionBuilder } from './services/submission-builder.js';
import { openStore as openStoreWith, type Store, type StoreLocation } from './store/store.js';

export { buildServer, type ServerDeps } from './server.js';
export { loadConfig, configWith, type FormsConfig } from './config.js';
export { type Store, type StoreLocation } from './store/store.js';
export { loadOrCreateVapidKeys, vapidKeysOf, type VapidKeys } from './services/vapid-keys.js';

/**
 * The store at `location` (a bare string is a USER_DATA_DIR for the embedded SQLite store),
 * building ingest rows with the server's own rules.
 */
export function openStore(location: StoreLocation | string): Promise<Store> {
  return openStoreWith(location, submissionBuilder);
}
