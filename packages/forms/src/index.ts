// The package's public surface: embed or test the forms server without spawning it.
export { buildServer, type ServerDeps } from './server.js';
export { loadConfig, configWith, type FormsConfig } from './config.js';
export { openStore, type Store } from './store/store.js';
export { loadOrCreateVapidKeys, type VapidKeys } from './services/vapid-keys.js';
