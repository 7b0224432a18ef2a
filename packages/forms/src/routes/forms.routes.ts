import { Type } from '@fastify/type-provider-typebox';
import { HttpError } from '@havn/shared';
import { validateDefinition } from '../services/definition-validator.js';
import { toFormPatch, toFormWrite } from '../services/form-input.service.js';
import { adminAuth } from './admin-auth.js';
import { baseUrl, type App, type RouteDeps } from './app.js';

const OrgParams = Type.Object({ org: Type.String() });
const FormParams = Type.Object({
  org: Type.String(),
  form: Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$' }),
});
const definitionLimit = 2 * 1024 * 1024; // spec 2 §8

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
  spamProtection: Type.Optional(Type.Unknown()), // checked in the service: one plain sentence
  // Checked in toFormWrite: a schema union with null would let Ajv coerce 0 to null.
  retentionDays: Type.Optional(Type.Unknown()),
  notify: Type.Optional(Type.Unknown()), // checked in the service, to name the bad entry
  definition: Type.Optional(Type.Unknown()),
});

/** Forms and definitions (spec 2 §4.3) plus the definition versions of issue 6. */
export function registerFormRoutes(app: App, deps: RouteDeps): void {
  const { store, config } = deps;
  const onRequest = adminAuth(deps);
  const iso = () => new Date(deps.now()).toISOString();
  const embedUrl = (base: string, org: string, form: string) =>
    `${base}/api/orgs/${encodeURIComponent(org)}/forms/${encodeURIComponent(form)}/definition`;

  async function mustGetForm(org: string, form: string) {
    const found = await store.forms.get(org, form);
    if (!found) throw new HttpError(404, `form ${org}/${form} not found`);
    return found;
  }

  app.get(
    '/api/orgs/:org/forms',
    { onRequest, schema: { params: OrgParams } },
    async (request) => ({
      forms: await store.forms.list(request.params.org),
    }),
  );

  app.get(
    '/api/orgs/:org/forms/:form',
    { onRequest, schema: { params: FormParams } },
    async (request) => {
      const { org, form } = request.params;
      const found = await mustGetForm(org, form);
      const stored = await store.forms.definition(org, form);
      return {
        form: found,
        ...(stored ? { definition: stored.definition } : {}),
        embedUrl: embedUrl(baseUrl(config, request), org, form),
      };
    },
  );

  app.put(
    '/api/orgs/:org/forms/:form',
    { onRequest, bodyLimit: definitionLimit, schema: { params: FormParams, body: FormBody } },
    async (request) => {
      const { org, form } = request.params;
      return store.forms.put(org, form, toFormWrite(form, request.body), iso());
    },
  );

  app.patch(
    '/api/orgs/:org/forms/:form',
    { onRequest, bodyLimit: definitionLimit, schema: { params: FormParams, body: FormBody } },
    async (request) => {
      const { org, form } = request.params;
      const current = await mustGetForm(org, form);
      const patch = toFormPatch(request.body, current);
      const patched = await store.forms.patch(org, form, patch, iso());
      if (!patched) throw new HttpError(404, `form ${org}/${form} not found`);
      return patched;
    },
  );

  app.delete(
    '/api/orgs/:org/forms/:form',
    { onRequest, schema: { params: FormParams } },
    async (request, reply) => {
      const { org, form } = request.params;
      if (!(await store.forms.delete(org, form))) {
        throw new HttpError(404, `form ${org}/${form} not found`);
      }
      return reply.code(204).send();
    },
  );

  app.put(
    '/api/orgs/:org/forms/:form/definition',
    { onRequest, bodyLimit: definitionLimit, schema: { params: FormParams } },
    async (request) => {
      const { org, form } = request.params;
      await mustGetForm(org, form);
      validateDefinition(request.body);
      const version = await store.forms.putDefinition(org, form, request.body, iso());
      if (version === undefined) throw new HttpError(404, `form ${org}/${form} not found`);
      return { version };
    },
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
      await mustGetForm(org, form);
      const stored = await store.forms.definition(org, form, version);
      if (!stored)
        throw new HttpError(
          404,
          `form ${org}/${form} has no definition version ${String(version)}`,
        );
      return stored.definition;
    },
  );
}
