import { publishedSchema } from '../services/definition-schema.js';
import { baseUrl, type App, type RouteDeps } from './app.js';

/** Health, version and the definition JSON Schema (docs/forms.md#push-service-web-app). */
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
