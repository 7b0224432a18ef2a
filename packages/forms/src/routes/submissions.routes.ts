import { Readable } from 'node:stream';
import { Type } from '@fastify/type-provider-typebox';
import { HttpError } from '@havn/shared';
import type { FastifyReply } from 'fastify';
import {
  answerColumns,
  csvExport,
  jsonExport,
  orgAnswerColumns,
} from '../services/export.service.js';
import { exportRange } from '../services/export-range.js';
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

// 0-decisions §2: limit defaults to 50; larger values are capped at 500.
const feedLimit = (limit: number | undefined) => Math.min(limit ?? 50, 500);

/** Feeds, full records, read flag, redeliver and export (spec 2 §4.4, issues 5 and 6). */
export function registerSubmissionRoutes(app: App, deps: RouteDeps): void {
  const { store } = deps;
  const onRequest = adminAuth(deps);

  async function mustGetForm(org: string, form: string) {
    const found = await store.forms.get(org, form);
    if (!found) throw new HttpError(404, `form ${org}/${form} not found`);
    return found;
  }

  app.get(
    '/api/orgs/:org/submissions',
    { onRequest, schema: { params: OrgParams, querystring: FeedQuery } },
    async (request) => ({
      submissions: await store.submissions.feed({
        org: request.params.org,
        limit: feedLimit(request.query.limit),
        includeSpam: request.query.includeSpam ?? false,
        before: request.query.before,
      }),
    }),
  );

  app.get(
    '/api/orgs/:org/forms/:form/submissions',
    { onRequest, schema: { params: FormParams, querystring: FeedQuery } },
    async (request) => {
      const { org, form } = request.params;
      await mustGetForm(org, form);
      return {
        submissions: await store.submissions.feed({
          org,
          form,
          limit: feedLimit(request.query.limit),
          includeSpam: request.query.includeSpam ?? false,
          before: request.query.before,
        }),
      };
    },
  );

  /** Streams an export as an attachment named `<name>-submissions-<day>.<format>`. */
  function sendExport(
    reply: FastifyReply,
    name: string,
    format: 'csv' | 'json',
    body: AsyncIterable<string>,
  ) {
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
      .send(Readable.from(body));
  }

  app.get(
    '/api/orgs/:org/forms/:form/submissions/export',
    { onRequest, schema: { params: FormParams, querystring: ExportQuery } },
    async (request, reply) => {
      const { org, form } = request.params;
      const range = exportRange(request.query.since, request.query.until);
      await mustGetForm(org, form);
      const format = request.query.format ?? 'csv';
      const records = store.submissions.all(org, form, range);
      const body =
        format === 'csv'
          ? csvExport(answerColumns(await store.forms.allDefinitions(org, form)), records)
          : jsonExport(records);
      return sendExport(reply, `${org}-${form}`, format, body);
    },
  );

  app.get(
    '/api/orgs/:org/submissions/export',
    { onRequest, schema: { params: OrgParams, querystring: ExportQuery } },
    async (request, reply) => {
      const { org } = request.params;
      const range = exportRange(request.query.since, request.query.until);
      const format = request.query.format ?? 'csv';
      const records = store.submissions.all(org, undefined, range);
      let body: AsyncIterable<string>;
      if (format === 'csv') {
        const perForm: string[][] = [];
        for (const f of await store.forms.list(org)) {
          perForm.push(answerColumns(await store.forms.allDefinitions(org, f.id)));
        }
        body = csvExport(orgAnswerColumns(perForm), records, { formColumn: true });
      } else {
        body = jsonExport(records);
      }
      return sendExport(reply, org, format, body);
    },
  );

  app.get(
    '/api/orgs/:org/forms/:form/submissions/:id',
    { onRequest, schema: { params: SubParams } },
    async (request) => {
      const { org, form, id } = request.params;
      const record = await store.submissions.get(org, form, id);
      if (!record) throw new HttpError(404, `submission ${id} not found`);
      const deliveries = await store.deliveries.ofSubmission(id);
      return { ...record, body: record.body.toString('utf8'), deliveries };
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
        if (!(await store.submissions.setRead(org, form, id, read))) {
          throw new HttpError(404, `submission ${id} not found`);
        }
        return { id, read };
      },
    );
  }

  app.delete(
    '/api/orgs/:org/forms/:form/submissions/:id',
    { onRequest, schema: { params: SubParams } },
    async (request, reply) => {
      const { org, form, id } = request.params;
      if (!(await store.submissions.delete(org, form, id))) {
        throw new HttpError(404, `submission ${id} not found`);
      }
      return reply.code(204).send();
    },
  );

  app.post(
    '/api/orgs/:org/forms/:form/submissions/:id/redeliver',
    { onRequest, schema: { params: SubParams } },
    async (request, reply) => {
      const { org, form, id } = request.params;
      if (!(await store.submissions.get(org, form, id))) {
        throw new HttpError(404, `submission ${id} not found`);
      }
      const queued = await store.deliveries.requeue(id, deps.now());
      deps.worker.kick();
      return reply.code(202).send({ id, queued });
    },
  );
}
