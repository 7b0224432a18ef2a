import { publishedSchema } from '../services/definition-schema.js';
import { errorAnswers } from '../wire/errors.js';
import { Health, Version } from '../wire/service.js';
import { baseUrl, type App, type RouteDeps } from './app.js';

/** Health, version and the definition JSON Schema (docs/forms.md#push-service-web-app). */
export function registerServiceRoutes(app: App, deps: RouteDeps): void {
  app.get('/api/health', { schema: { response: { 200: Health, ...errorAnswers() } } }, () => ({
    ok: true as const,
  }));
  app.get('/api/version', { schema: { response: { 200: Version, ...errorAnswers() } } }, () => ({
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
