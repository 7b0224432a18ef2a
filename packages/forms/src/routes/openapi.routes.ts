import type { SwaggerTransform } from '@fastify/swagger';
import type { FastifySchema } from 'fastify';
import { IngestBody } from '../wire/public.js';
import { isAdminHook } from './admin-auth.js';
import type { App } from './app.js';

/**
 * What the OpenAPI document shows of each route (docs/forms.md#push-service-web-app): the API
 * under /api only (the web app, the thanks page and the definition schema are not), a bearer
 * token on every route behind the admin hook, and the ingest body, which the route reads from its
 * bytes rather than through a schema.
 */
export const documentRoute: SwaggerTransform = ({ schema, url, route }) => {
  const shown: FastifySchema & Record<string, unknown> = { ...schema };
  if (!url.startsWith('/api/')) return { schema: { ...shown, hide: true }, url };
  if (route.config?.unparsedJson === true) {
    shown.body = IngestBody;
    shown.consumes = [
      'application/json',
      'application/x-www-form-urlencoded',
      'multipart/form-data',
    ];
  }
  const hooks = [route.onRequest ?? []].flat();
  if (hooks.some(isAdminHook)) shown.security = [{ bearer: [] }];
  return { schema: shown, url };
};

/** GET /api/openapi.json: the OpenAPI document generated from the route schemas. No token. */
export function registerOpenapiRoutes(app: App): void {
  app.get('/api/openapi.json', { schema: { hide: true } }, () => app.swagger());
}
