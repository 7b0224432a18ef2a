import { adminErrors, bodyErrors, errorAnswers, NoContent } from '../wire/errors.js';
import {
  CreateOrgBody,
  MintedToken,
  MintTokenBody,
  Org,
  OrgList,
  OrgParams,
  RenameOrgBody,
  TokenList,
  TokenParams,
} from '../wire/orgs.js';
import { adminAuth } from './admin-auth.js';
import { principalOf, type App, type RouteDeps } from './app.js';

const errors = errorAnswers(...adminErrors);
const bodyRouteErrors = errorAnswers(...adminErrors, ...bodyErrors);

/** Organisations and their tokens (docs/forms.md#organisations-and-tokens). */
export function registerOrgRoutes(app: App, deps: RouteDeps): void {
  const { orgs, tokens } = deps;
  const onRequest = adminAuth(deps);

  app.get(
    '/api/orgs',
    { onRequest, schema: { response: { 200: OrgList, ...errors } } },
    async (request) => ({ orgs: await orgs.list(principalOf(request)) }),
  );

  app.post(
    '/api/orgs',
    {
      onRequest,
      schema: {
        body: CreateOrgBody,
        response: { 201: Org, ...errorAnswers(...adminErrors, ...bodyErrors, 409) },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await orgs.create(principalOf(request), request.body)),
  );

  app.get(
    '/api/orgs/:org',
    { onRequest, schema: { params: OrgParams, response: { 200: Org, ...errors } } },
    async (request) => orgs.get(request.params.org),
  );

  app.put(
    '/api/orgs/:org',
    {
      onRequest,
      schema: {
        params: OrgParams,
        body: RenameOrgBody,
        response: { 200: Org, ...bodyRouteErrors },
      },
    },
    async (request) => orgs.rename(request.params.org, request.body.name),
  );

  app.post(
    '/api/orgs/:org/tokens',
    {
      onRequest,
      schema: {
        params: OrgParams,
        body: MintTokenBody,
        response: { 201: MintedToken, ...bodyRouteErrors },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await tokens.mint(request.params.org, request.body.label)),
  );

  app.get(
    '/api/orgs/:org/tokens',
    { onRequest, schema: { params: OrgParams, response: { 200: TokenList, ...errors } } },
    async (request) => ({ tokens: await tokens.list(request.params.org) }),
  );

  app.delete(
    '/api/orgs/:org/tokens/:id',
    { onRequest, schema: { params: TokenParams, response: { 204: NoContent, ...errors } } },
    async (request, reply) => {
      await tokens.revoke(request.params.org, request.params.id);
      return reply.code(204).send(null);
    },
  );
}
