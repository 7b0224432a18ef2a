import { Type } from '@fastify/type-provider-typebox';
import { adminAuth } from './admin-auth.js';
import { baseUrl, type App, type RouteDeps } from './app.js';

const OrgParams = Type.Object({ org: Type.String() });
const FormParams = Type.Object({
  org: Type.String(),
  form: Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$' }),
});
const definitionLimit = 2 * 1024 * 1024; // docs/forms.md#forms-and-definitions

const FormBody = Type.Object({
  name: Type.Optional(Type.String({ maxLength: 200 })),
  description: Type.Optional(Type.String({ maxLength: 5000 })),
  allowedOrigins: Type.Optional(Type.Array(Type.String(), { maxItems: 100 })),
  webhooks: Type.Optional(
    Type.Array(
      Type.Object({
        url: Type.String({ maxLength: 2048 }),
        secret: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
      }),
      { maxItems: 20 },
    ),
  ),
  redirectUrl: Type.Optional(Type.Union([Type.String({ maxLength: 2048 }), Type.Null()])),
  // Checked in toFormWrite: a schema union with null would let Ajv coerce 0 to null.
  retentionDays: Type.Optional(Type.Unknown()),
  notify: Type.Optional(Type.Unknown()), // checked in the service, to name the bad entry
  spamProtection: Type.Optional(Type.Unknown()), // checked in the service: one plain sentence
  definition: Type.Optional(Type.Unknown()),
});

/** Forms and their versioned definitions (docs/forms.md#forms-and-definitions). */
export function registerFormRoutes(app: App, deps: RouteDeps): void {
  const { forms, config } = deps;
  const onRequest = adminAuth(deps);

  app.get(
    '/api/orgs/:org/forms',
    { onRequest, schema: { params: OrgParams } },
    async (request) => ({ forms: await forms.list(request.params.org) }),
  );

  app.get(
    '/api/orgs/:org/forms/:form',
    { onRequest, schema: { params: FormParams } },
    async (request) => {
      const { org, form } = request.params;
      return forms.view(org, form, baseUrl(config, request));
    },
  );

  app.put(
    '/api/orgs/:org/forms/:form',
    { onRequest, bodyLimit: definitionLimit, schema: { params: FormParams, body: FormBody } },
    async (request) => forms.replace(request.params.org, request.params.form, request.body),
  );

  app.patch(
    '/api/orgs/:org/forms/:form',
    { onRequest, bodyLimit: definitionLimit, schema: { params: FormParams, body: FormBody } },
    async (request) => forms.patch(request.params.org, request.params.form, request.body),
  );

  app.delete(
    '/api/orgs/:org/forms/:form',
    { onRequest, schema: { params: FormParams } },
    async (request, reply) => {
      await forms.remove(request.params.org, request.params.form);
      return reply.code(204).send();
    },
  );

  app.put(
    '/api/orgs/:org/forms/:form/definition',
    { onRequest, bodyLimit: definitionLimit, schema: { params: FormParams } },
    async (request) => ({
      version: await forms.putDefinition(request.params.org, request.params.form, request.body),
    }),
  );

  // Each version with when it was saved, for the inbox (docs/forms.md#forms-and-definitions).
  app.get(
    '/api/orgs/:org/forms/:form/definitions',
    {
      onRequest,
      schema: {
        params: FormParams,
        response: {
          200: Type.Object({
            versions: Type.Array(
              Type.Object({ version: Type.Integer(), createdAt: Type.String() }),
            ),
          }),
        },
      },
    },
    async (request) => ({
      versions: await forms.definitionVersions(request.params.org, request.params.form),
    }),
  );

  app.get(
    '/api/orgs/:org/forms/:form/definitions/:version',
    {
      onRequest,
      schema: {
        params: Type.Object({
          org: Type.String(),
          form: Type.String(),
          version: Type.Integer({ minimum: 1 }),
        }),
      },
    },
    async (request) => {
      const { org, form, version } = request.params;
      return forms.definitionVersion(org, form, version);
    },
  );
}
