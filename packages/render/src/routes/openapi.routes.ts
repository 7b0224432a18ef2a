import type { SwaggerTransform } from '@fastify/swagger';
import type { FastifySchema } from 'fastify';
import { ErrorBody } from '../schemas/render.schema.js';
import type { App } from '../server-context.js';

/**
 * What the OpenAPI document shows of each route (docs/render.md#get-v1openapijson-and-get-metrics), beside what its schema
 * declares: one spelling of a path (a trailing slash the server also takes is not a second route),
 * no token on a public route, and the errors every route of a kind answers, written once here
 * rather than beside each route: 401 where a token is needed, 400 where a body or query is read,
 * 413 where a body is, 404 where a path names a resource.
 */
export const documentRoute: SwaggerTransform = ({ schema, url, route }) => {
  const shown: FastifySchema & Record<string, unknown> = { ...schema };
  if (url.length > 1 && url.endsWith('/')) return { schema: { ...shown, hide: true }, url };
  const open = route.config?.access === 'public';
  if (open) shown.security = [];
  const answers: Record<string, unknown> = { ...(schema.response as object | undefined) };
  const add = (status: number, when: boolean) => {
    if (when && !(status in answers)) answers[status] = ErrorBody;
  };
  add(400, schema.body !== undefined || schema.querystring !== undefined);
  add(401, !open);
  add(413, schema.body !== undefined);
  add(404, url.includes('/:'));
  shown.response = answers;
  return { schema: shown, url };
};

/** GET /v1/openapi.json: the OpenAPI document generated from the route schemas. */
export function openapiRoutes(app: App): void {
  app.get('/v1/openapi.json', { config: { access: 'service' }, schema: { hide: true } }, () =>
    app.swagger(),
  );
}
