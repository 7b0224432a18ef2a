import { adminErrors, bodyErrors, errorAnswers, NoContent } from '../wire/errors.js';
import {
  Definition,
  DefinitionBody,
  DefinitionStored,
  DefinitionVersionParams,
  DefinitionVersions,
  Form,
  FormBody,
  FormList,
  FormParams,
  FormView,
} from '../wire/forms.js';
import { OrgParams } from '../wire/orgs.js';
import { adminAuth } from './admin-auth.js';
import { baseUrl, type App, type RouteDeps } from './app.js';

const definitionLimit = 2 * 1024 * 1024; // docs/forms.md#forms-and-definitions
const errors = errorAnswers(...adminErrors);
const bodyRouteErrors = errorAnswers(...adminErrors, ...bodyErrors);

/** Forms and their versioned definitions (docs/forms.md#forms-and-definitions). */
export function registerFormRoutes(app: App, deps: RouteDeps): void {
  const { forms, config } = deps;
  const onRequest = adminAuth(deps);

  app.get(
    '/api/orgs/:org/forms',
    { onRequest, schema: { params: OrgParams, response: { 200: FormList, ...errors } } },
    async (request) => ({ forms: await forms.list(request.params.org) }),
  );

  app.get(
    '/api/orgs/:org/forms/:form',
    { onRequest, schema: { params: FormParams, response: { 200: FormView, ...errors } } },
    async (request) => {
      const { org, form } = request.params;
      return forms.view(org, form, baseUrl(config, request));
    },
  );

  app.put(
    '/api/orgs/:org/forms/:form',
    {
      onRequest,
      bodyLimit: definitionLimit,
      schema: { params: FormParams, body: FormBody, response: { 200: Form, ...bodyRouteErrors } },
    },
    async (request) => forms.replace(request.params.org, request.params.form, request.body),
  );

  app.patch(
    '/api/orgs/:org/forms/:form',
    {
      onRequest,
      bodyLimit: definitionLimit,
      schema: { params: FormParams, body: FormBody, response: { 200: Form, ...bodyRouteErrors } },
    },
    async (request) => forms.patch(request.params.org, request.params.form, request.body),
  );

  app.delete(
    '/api/orgs/:org/forms/:form',
    { onRequest, schema: { params: FormParams, response: { 204: NoContent, ...errors } } },
    async (request, reply) => {
      await forms.remove(request.params.org, request.params.form);
      return reply.code(204).send(null);
    },
  );

  app.put(
    '/api/orgs/:org/forms/:form/definition',
    {
      onRequest,
      bodyLimit: definitionLimit,
      schema: {
        params: FormParams,
        body: DefinitionBody,
        response: { 200: DefinitionStored, ...bodyRouteErrors },
      },
    },
    async (request) => ({
      version: await forms.putDefinition(request.params.org, request.params.form, request.body),
    }),
  );

  // Each version with when it was saved, for the inbox (docs/forms.md#forms-and-definitions).
  app.get(
    '/api/orgs/:org/forms/:form/definitions',
    { onRequest, schema: { params: FormParams, response: { 200: DefinitionVersions, ...errors } } },
    async (request) => ({
      versions: await forms.definitionVersions(request.params.org, request.params.form),
    }),
  );

  app.get(
    '/api/orgs/:org/forms/:form/definitions/:version',
    {
      onRequest,
      schema: { params: DefinitionVersionParams, response: { 200: Definition, ...errors } },
    },
    async (request) => {
      const { org, form, version } = request.params;
      return forms.definitionVersion(org, form, version);
    },
  );
}
