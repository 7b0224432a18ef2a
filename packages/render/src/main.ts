import { readFileSync } from 'node:fs';
import {
  checkPortOrExit,
  closeOnSignals,
  configOrExit,
  createLogger,
  listenOrExit,
} from '@havn/shared';
import { composeServer } from './compose.js';
import { loadConfig } from './config.js';
import { sessionsExtension } from './sessions/sessions-extension.js';

// The render service's entry: reads the environment (through config.ts), listens, and closes
// cleanly on SIGTERM/SIGINT (in-flight requests finish, then the browser and proxy close).
// Start-up errors follow docs/configuration.md#start-up-errors: exit 2 for configuration, one
// line and exit 1 for a port that cannot be bound, checked before a browser starts.

const log = createLogger({ name: 'havn-render' });
const { version } = JSON.parse(
  readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
) as { version: string };

const config = configOrExit('render', () => loadConfig(process.env));
await checkPortOrExit('render', config.port, config.host);

const sessions = sessionsExtension();
const app = await composeServer({ config, log, version, extensions: [sessions], warmUp: true });
await listenOrExit('render', app, config.port, config.host);
if (config.allowAnonymous) log.warn('ALLOW_ANONYMOUS=1: every route is open without a token');

// docs/render.md#several-instances: a cluster member drains before it closes.
closeOnSignals(app, log, () => sessions.drain());
