import { Type } from '@fastify/type-provider-typebox';
import { adminAuth } from './admin-auth.js';
import { principalOf, type App, type RouteDeps } from './app.js';

const OrgParams = Type.Object({ org: Type.String() });
const Name = Type.String({ minLength: 1, maxLength: 200 });

/** Organisations and their tokens (docs/forms.md#organisations-and-tokens). */
export function registerOrgRoutes(app: App, deps: RouteDeps): void {
  const { orgs, tokens } = deps;
  const onRequest = adminAuth(deps);

  app.get('/api/orgs', { onRequest }, async (request) => ({
    orgs: await orgs.list(principalOf(request)),
  }));

  app.post(
    '/api/orgs',
    {
      onRequest,
      schema: {
        body: Type.Object({
          slug: Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,62}$' }),
          name: Name,
        }),
      },
    },
    async (request, reply) =>
      reply.code(201).send(await orgs.create(principalOf(request), request.body)),
  );

  app.get('/api/orgs/:org', { onRequest, schema: { params: OrgParams } }, async (request) =>
    orgs.get(request.params.org),
  );

  app.put(
    '/api/orgs/:org',
    { onRequest, schema: { params: OrgParams, body: Type.Object({ name: Name }) } },
    async (request) => orgs.rename(request.params.org, request.body.name),
  );

  app.post(
    '/api/orgs/:org/tokens',
    {
      onRequest,
      schema: {
        params: OrgParams,
        body: Type.Object({ label: Type.String({ minLength: 1, maxLength: 200 }) }),
      },
    },
    async (request, reply) =>
      reply.code(201).send(await tokens.mint(request.params.org, request.body.label)),
  );

  app.get(
    '/api/orgs/:org/tokens',
    { onRequest, schema: { params: OrgParams } },
    async (request) => ({ tokens: await tokens.list(request.params.org) }),
  );

  app.delete(
    '/api/orgs/:org/tokens/:id',
    { onRequest, schema: { params: Type.Object({ org: Type.String(), id: Type.String() }) } },
    async (request, reply) => {
      await tokens.revoke(request.params.org, request.params.id);
      return reply.code(204).send();
    },
  );
}
