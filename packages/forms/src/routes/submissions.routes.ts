import { Readable } from 'node:stream';
import { Type } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import type { Export } from '../services/export.service.js';
import { adminAuth } from './admin-auth.js';
import type { App, RouteDeps } from './app.js';

const OrgParams = Type.Object({ org: Type.String() });
const FormParams = Type.Object({ org: Type.String(), form: Type.String() });
const SubParams = Type.Object({ org: Type.String(), form: Type.String(), id: Type.String() });
const ExportQuery = Type.Object({
  format: Type.Optional(Type.Union([Type.Literal('csv'), Type.Literal('json')])),
  since: Type.Optional(Type.String()),
  until: Type.Optional(Type.String()),
});
const FeedQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1 })),
  before: Type.Optional(Type.String()),
  includeSpam: Type.Optional(Type.Boolean()),
});

/** Feeds, full records, read flag, erase, redeliver and export (docs/forms.md#submissions). */
export function registerSubmissionRoutes(app: App, deps: RouteDeps): void {
  const { submissions, exports } = deps;
  const onRequest = adminAuth(deps);

  app.get(
    '/api/orgs/:org/submissions',
    { onRequest, schema: { params: OrgParams, querystring: FeedQuery } },
    async (request) => ({
      submissions: await submissions.feed(request.params.org, undefined, request.query),
    }),
  );

  app.get(
    '/api/orgs/:org/forms/:form/submissions',
    { onRequest, schema: { params: FormParams, querystring: FeedQuery } },
    async (request) => {
      const { org, form } = request.params;
      return { submissions: await submissions.feed(org, form, request.query) };
    },
  );

  /** Streams an export as an attachment named `<name>-submissions-<day>.<format>`. */
  function sendExport(reply: FastifyReply, name: string, { format, lines }: Export) {
    const day = new Date(deps.now()).toISOString().slice(0, 10);
    const filename = `${name}-submissions-${day}.${format}`.replace(/[^A-Za-z0-9._-]/g, '_');
    return reply
      .header(
        'content-type',
        format === 'csv'
          ? 'text/csv; charset=utf-8; header=present'
          : 'application/json; charset=utf-8',
      )
      .header('content-disposition', `attachment; filename="${filename}"`)
      .send(Readable.from(lines));
  }

  app.get(
    '/api/orgs/:org/forms/:form/submissions/export',
    { onRequest, schema: { params: FormParams, querystring: ExportQuery } },
    async (request, reply) => {
      const { org, form } = request.params;
      return sendExport(reply, `${org}-${form}`, await exports.ofForm(org, form, request.query));
    },
  );

  app.get(
    '/api/orgs/:org/submissions/export',
    { onRequest, schema: { params: OrgParams, querystring: ExportQuery } },
    async (request, reply) => {
      const { org } = request.params;
      return sendExport(reply, org, await exports.ofOrg(org, request.query));
    },
  );

  app.get(
    '/api/orgs/:org/forms/:form/submissions/:id',
    { onRequest, schema: { params: SubParams } },
    async (request) => {
      const { org, form, id } = request.params;
      return submissions.record(org, form, id);
    },
  );

  for (const [path, read] of [
    ['read', true],
    ['unread', false],
  ] as const) {
    app.post(
      `/api/orgs/:org/forms/:form/submissions/:id/${path}`,
      { onRequest, schema: { params: SubParams } },
      async (request) => {
        const { org, form, id } = request.params;
        await submissions.setRead(org, form, id, read);
        return { id, read };
      },
    );
  }

  app.delete(
    '/api/orgs/:org/forms/:form/submissions/:id',
    { onRequest, schema: { params: SubParams } },
    async (request, reply) => {
      const { org, form, id } = request.params;
      await submissions.erase(org, form, id);
      return reply.code(204).send();
    },
  );

  app.post(
    '/api/orgs/:org/forms/:form/submissions/:id/redeliver',
    { onRequest, schema: { params: SubParams } },
    async (request, reply) => {
      const { org, form, id } = request.params;
      return reply.code(202).send({ id, queued: await submissions.redeliver(org, form, id) });
    },
  );
}
