import { ConfigError, createLogger, closeOnSignals } from '@havn/shared';
import { loadConfig, type FormsConfig } from './config.js';
import { buildServer } from './server.js';
import { vapidKeysOf } from './services/vapid-keys.js';
import { buildFromRequest } from './services/ingest.service.js';
import { openStore, type Store } from './store/store.js';

/** The URL without its password, for the log. */
function redacted(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = '***';
  return u.toString();
}

// The only place that reads the environment, listens and handles signals.
let config: FormsConfig;
try {
  config = loadConfig(process.env);
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(`havn forms: ${err.message}`);
    process.exit(2);
  }
  throw err;
}

const log = createLogger({ name: 'havn-forms', level: config.logLevel });
if (config.adminToken === undefined) {
  log.warn('FORM_ADMIN_TOKEN is not set: the admin API is OPEN to anyone who can reach it');
}
let store: Store;
try {
  store = await openStore(config, buildFromRequest);
} catch (err) {
  // An unreachable PostgreSQL, a refused password, an unwritable USER_DATA_DIR: say which, once.
  const where =
    config.databaseUrl === undefined ? config.userDataDir : redacted(config.databaseUrl);
  log.fatal({ err }, `cannot open the database at ${where}: ${(err as Error).message}`);
  process.exit(1);
}
const app = await buildServer({
  config,
  log,
  store,
  vapid: await vapidKeysOf(store, config.userDataDir),
});
const url = await app.listen({ port: config.port, host: config.host });
log.info({ url }, `havn forms listening on ${url}`);

closeOnSignals(app, log);
