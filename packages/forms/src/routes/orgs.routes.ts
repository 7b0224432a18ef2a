import { Type } from '@fastify/type-provider-typebox';
import { HttpError, randomToken, sha256Hex } from '@havn/shared';
import { requireAdmin } from '../services/auth.service.js';
import { adminAuth } from './admin-auth.js';
import { principalOf, type App, type RouteDeps } from './app.js';

const OrgParams = Type.Object({ org: Type.String() });
const Name = Type.String({ minLength: 1, maxLength: 200 });

/** Organisations and their tokens (spec 2 §4.2, bodies per 0-decisions §2). */
export function registerOrgRoutes(app: App, deps: RouteDeps): void {
  const { store } = deps;
  const onRequest = adminAuth(deps);
  const iso = () => new Date(deps.now()).toISOString();

  app.get('/api/orgs', { onRequest }, async (request) => {
    const p = principalOf(request);
    return { orgs: await store.orgs.list(p.kind === 'org' ? p.org : undefined) };
  });

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
    async (request, reply) => {
      requireAdmin(principalOf(request), 'create organisations');
      const now = iso();
      const org = {
        slug: request.body.slug,
        name: request.body.name,
        createdAt: now,
        updatedAt: now,
      };
      if (!(await store.orgs.create(org))) {
        throw new HttpError(409, `organisation slug ${org.slug} is taken`);
      }
      return reply.code(201).send(org);
    },
  );

  app.get('/api/orgs/:org', { onRequest, schema: { params: OrgParams } }, async (request) => {
    return store.orgs.get(request.params.org);
  });

  app.put(
    '/api/orgs/:org',
    { onRequest, schema: { params: OrgParams, body: Type.Object({ name: Name }) } },
    async (request) => store.orgs.rename(request.params.org, request.body.name, iso()),
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
    async (request, reply) => {
      // spec 2 §5 rule 5: only the hash is kept; the plaintext is in this one answer.
      const token = `havn_${randomToken(24)}`;
      const info = { id: deps.newId('tok'), label: request.body.label, createdAt: iso() };
      await store.orgs.addToken({
        ...info,
        orgSlug: request.params.org,
        tokenHash: sha256Hex(token),
      });
      return reply.code(201).send({ ...info, token });
    },
  );

  app.get(
    '/api/orgs/:org/tokens',
    { onRequest, schema: { params: OrgParams } },
    async (request) => ({
      tokens: await store.orgs.tokens(request.params.org),
    }),
  );

  app.delete(
    '/api/orgs/:org/tokens/:id',
    { onRequest, schema: { params: Type.Object({ org: Type.String(), id: Type.String() }) } },
    async (request, reply) => {
      if (!(await store.orgs.deleteToken(request.params.org, request.params.id))) {
        throw new HttpError(404, `token ${request.params.id} not found`);
      }
      return reply.code(204).send();
    },
  );
}
