import { readFileSync } from 'node:fs';
import { ConfigError, createLogger, closeOnSignals } from '@havn/shared';
import { composeServer } from './compose.js';
import { loadConfig } from './config.js';
import { sessionsExtension } from './sessions/sessions-extension.js';

// The render service's entry: reads the environment (through config.ts), listens, and closes
// cleanly on SIGTERM/SIGINT (in-flight requests finish, then the browser and proxy close).

const log = createLogger({ name: 'havn-render' });
const { version } = JSON.parse(
  readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
) as { version: string };

let config;
try {
  config = loadConfig(process.env);
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(`havn render: ${err.message}`);
    process.exit(1);
  }
  throw err;
}

const app = await composeServer({
  config,
  log,
  version,
  extensions: [sessionsExtension()],
  warmUp: true,
});
await app.listen({ port: config.port, host: config.host });
if (config.allowAnonymous) log.warn('ALLOW_ANONYMOUS=1: every route is open without a token');

closeOnSignals(app, log);
