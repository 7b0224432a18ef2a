import {
  checkPortOrExit,
  closeOnSignals,
  configOrExit,
  createLogger,
  listenOrExit,
} from '@havn/shared';
import { loadConfig } from './config.js';
import { buildServer } from './server.js';
import { vapidKeysOf } from './services/vapid-keys.js';
import { submissionBuilder } from './services/submission-builder.js';
import { openStore, type Store } from './store/store.js';
import { openWhenReachable } from './wait-for-store.js';

/** The URL without its password, for the log. */
function redacted(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = '***';
  return u.toString();
}

// The only place that reads the environment, listens and handles signals. Start-up errors follow
// docs/configuration.md#start-up-errors; the port is checked before the data directory, database
// and keys are created, so a taken port leaves nothing behind.
const config = configOrExit('forms', () => loadConfig(process.env));
await checkPortOrExit('forms', config.port, config.host);

const log = createLogger({ name: 'havn-forms', level: config.logLevel });
if (config.adminToken === undefined) {
  log.warn('FORM_ADMIN_TOKEN is not set: the admin API is OPEN to anyone who can reach it');
}
if (config.smtp === undefined) {
  log.info('SMTP_URL is not set: email notices are off (forms keep their notify lists)');
} else {
  // Never the password (docs/forms.md#email-notices).
  const { host, port, secure, user, from } = config.smtp;
  log.info({ smtp: { host, port, secure, user, from } }, 'email notices are sent through SMTP');
}
let store: Store;
const where = config.databaseUrl === undefined ? config.userDataDir : redacted(config.databaseUrl);
try {
  store = await openWhenReachable(() => openStore(config, submissionBuilder), {
    port: config.port,
    host: config.host,
    where,
    log,
  });
} catch (err) {
  // A refused password, no such database, an unwritable USER_DATA_DIR: say which, once.
  log.fatal({ err }, `cannot open the database at ${where}: ${(err as Error).message}`);
  process.exit(1);
}
const app = await buildServer({
  config,
  log,
  store,
  vapid: await vapidKeysOf(store, config.userDataDir),
});
const url = await listenOrExit('forms', app, config.port, config.host);
log.info({ url }, `havn forms listening on ${url}`);
closeOnSignals(app, log);
// docs/forms.md#first-run-and-setup-links: the one line that ever holds the code.
// A stop signal may close the store meanwhile: then there is simply no link.
const setupLink = await app.firstRunSetupLink(config.publicBaseUrl ?? url).catch(() => undefined);
if (setupLink !== undefined) {
  log.info(
    `no organisation yet: open ${setupLink} to create the first one and sign in to its inbox (the link works once, for 1 hour; a restart prints a new one)`,
  );
}
