// The package's public surface: embed or test the forms server without spawning it.
import { buildFromRequest } from './services/ingest.service.js';
import { openStore as openStoreWith, type Store } from './store/store.js';

export { buildServer, type ServerDeps } from './server.js';
export { loadConfig, configWith, type FormsConfig } from './config.js';
export { type Store } from './store/store.js';
export { loadOrCreateVapidKeys, type VapidKeys } from './services/vapid-keys.js';

/** The embedded store in `userDataDir`, building ingest rows with the server's own rules. */
export function openStore(userDataDir: string): Promise<Store> {
  return openStoreWith(userDataDir, buildFromRequest);
}
