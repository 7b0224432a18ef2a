import { Readable } from 'node:stream';
import { Type } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import type { Export } from '../services/export.service.js';
import { adminErrors, errorAnswers, NoContent } from '../wire/errors.js';
import {
  ExportQuery,
  Feed,
  FeedQuery,
  FormFeedParams,
  JsonExport,
  OrgFeedParams,
  ReadAll,
  ReadAllQuery,
  ReadFlag,
  Requeued,
  Submission,
  SubmissionParams,
} from '../wire/submissions.js';
import { adminAuth } from './admin-auth.js';
import { baseUrl, type App, type RouteDeps } from './app.js';

const errors = errorAnswers(...adminErrors);

/** An export's two formats, as their content types (docs/forms.md#submissions). */
const ExportFile = {
  description: 'An attachment: CSV (the default) or JSON',
  content: {
    'text/csv': { schema: Type.String({ description: 'RFC 4180, one row per submission' }) },
    'application/json': { schema: JsonExport },
  },
};

/** Feeds, full records, read flag, erase, redeliver and export (docs/forms.md#submissions). */
export function registerSubmissionRoutes(app: App, deps: RouteDeps): void {
  const { submissions, exports } = deps;
  const onRequest = adminAuth(deps);

  app.get(
    '/api/orgs/:org/submissions',
    {
      onRequest,
      schema: { params: OrgFeedParams, querystring: FeedQuery, response: { 200: Feed, ...errors } },
    },
    async (request) => ({
      submissions: await submissions.feed(request.params.org, undefined, request.query),
    }),
  );

  app.get(
    '/api/orgs/:org/forms/:form/submissions',
    {
      onRequest,
      schema: {
        params: FormFeedParams,
        querystring: FeedQuery,
        response: { 200: Feed, ...errors },
      },
    },
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
    {
      onRequest,
      schema: {
        params: FormFeedParams,
        querystring: ExportQuery,
        response: { 200: ExportFile, ...errors },
      },
    },
    async (request, reply) => {
      const { org, form } = request.params;
      return sendExport(reply, `${org}-${form}`, await exports.ofForm(org, form, request.query));
    },
  );

  app.get(
    '/api/orgs/:org/submissions/export',
    {
      onRequest,
      schema: {
        params: OrgFeedParams,
        querystring: ExportQuery,
        response: { 200: ExportFile, ...errors },
      },
    },
    async (request, reply) => {
      const { org } = request.params;
      return sendExport(reply, org, await exports.ofOrg(org, request.query));
    },
  );

  app.get(
    '/api/orgs/:org/forms/:form/submissions/:id',
    { onRequest, schema: { params: SubmissionParams, response: { 200: Submission, ...errors } } },
    async (request) => {
      const { org, form, id } = request.params;
      const record = await submissions.record(org, form, id);
      // docs/forms.md#file-uploads: each file with a signed link the inbox can offer as is.
      await deps.fileLinks.link(record, baseUrl(deps.config, request));
      return record;
    },
  );

  for (const [path, read] of [
    ['read', true],
    ['unread', false],
  ] as const) {
    app.post(
      `/api/orgs/:org/forms/:form/submissions/:id/${path}`,
      { onRequest, schema: { params: SubmissionParams, response: { 200: ReadFlag, ...errors } } },
      async (request) => {
        const { org, form, id } = request.params;
        await submissions.setRead(org, form, id, read);
        return { id, read };
      },
    );
  }

  // docs/forms.md#submissions: mark all read, of the organisation or of one form.
  app.post(
    '/api/orgs/:org/submissions/read-all',
    {
      onRequest,
      schema: {
        params: OrgFeedParams,
        querystring: ReadAllQuery,
        response: { 200: ReadAll, ...errors },
      },
    },
    async (request) => ({
      marked: await submissions.markAllRead(request.params.org, undefined, request.query.through),
    }),
  );
  app.post(
    '/api/orgs/:org/forms/:form/submissions/read-all',
    {
      onRequest,
      schema: {
        params: FormFeedParams,
        querystring: ReadAllQuery,
        response: { 200: ReadAll, ...errors },
      },
    },
    async (request) => {
      const { org, form } = request.params;
      return { marked: await submissions.markAllRead(org, form, request.query.through) };
    },
  );

  app.delete(
    '/api/orgs/:org/forms/:form/submissions/:id',
    { onRequest, schema: { params: SubmissionParams, response: { 204: NoContent, ...errors } } },
    async (request, reply) => {
      const { org, form, id } = request.params;
      await submissions.erase(org, form, id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/api/orgs/:org/forms/:form/submissions/:id/redeliver',
    { onRequest, schema: { params: SubmissionParams, response: { 202: Requeued, ...errors } } },
    async (request, reply) => {
      const { org, form, id } = request.params;
      return reply.code(202).send({ id, queued: await submissions.redeliver(org, form, id) });
    },
  );
}
