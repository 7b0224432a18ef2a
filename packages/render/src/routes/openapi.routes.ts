import type { App } from '../server-context.js';

/** GET /v1/openapi.json: the OpenAPI document generated from the route schemas. */
export function openapiRoutes(app: App): void {
  app.get('/v1/openapi.json', { schema: { hide: true } }, () => app.swagger());
}
