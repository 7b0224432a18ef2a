import { publishedSchema } from '../services/definition-schema.js';
import { baseUrl, type App, type RouteDeps } from './app.js';

/** Health, version (spec 2 §4.6) and the definition JSON Schema (issue 6). No token needed. */
export function registerServiceRoutes(app: App, deps: RouteDeps): void {
  app.get('/api/health', () => ({ ok: true }));
  app.get('/api/version', () => ({
    version: deps.version,
    uptimeSec: Math.floor((deps.now() - deps.startedAt) / 1000),
  }));
  app.get('/schema/definition.json', async (request, reply) =>
    reply
      .header('content-type', 'application/schema+json; charset=utf-8')
      .header('access-control-allow-origin', '*')
      .send(JSON.stringify(publishedSchema(baseUrl(deps.config, request)), null, 2)),
  );
}
