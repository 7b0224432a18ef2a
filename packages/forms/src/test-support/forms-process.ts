// A forms server in a process of its own, so a test can kill it for real (SIGKILL) or stop it with
// SIGTERM: wired as main.ts wires it, from the same environment, plus FORMS_TEST_DEPS (JSON of
// the ServerDeps tests shorten: retrySchedule, deliveryLeaseMs, deliveryTimeoutMs). Prints
// {"url": …} on stdout once listening.
import { closeOnSignals, createLogger } from '@havn/shared';
import { loadConfig } from '../config.js';
import { buildServer, type ServerDeps } from '../server.js';
import { submissionBuilder } from '../services/submission-builder.js';
import { vapidKeysOf } from '../services/vapid-keys.js';
import { openStore } from '../store/store.js';

type TestDeps = Pick<ServerDeps, 'retrySchedule' | 'deliveryLeaseMs' | 'deliveryTimeoutMs'>;

const config = loadConfig(process.env);
const deps = JSON.parse(process.env.FORMS_TEST_DEPS ?? '{}') as TestDeps;
const log = createLogger({ name: 'forms-process', level: config.logLevel });
const store = await openStore(config, submissionBuilder);
const app = await buildServer({
  config,
  log,
  store,
  vapid: await vapidKeysOf(store, config.userDataDir),
  ...deps,
});
const url = await app.listen({ port: config.port, host: config.host });
process.stdout.write(`${JSON.stringify({ url })}\n`);
closeOnSignals(app, log);
