import { Type } from '@fastify/type-provider-typebox';
import { adminAuth } from './admin-auth.js';
import type { App, RouteDeps } from './app.js';

// The wire shapes of docs/forms.md#webhooks (the delivery log, a test send, one redeliver).

const ErrorBody = Type.Object({ error: Type.String() });
const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };

const FormParams = Type.Object({
  org: Type.String(),
  form: Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$' }),
});
const DeliveryParams = Type.Object({
  org: Type.String(),
  form: Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$' }),
  id: Type.String({ maxLength: 64 }),
});

const WebhookUrl = Type.String({ minLength: 1, maxLength: 2048 });

export const DeliveryLogQuery = Type.Object(
  {
    url: WebhookUrl,
    limit: Type.Optional(Type.Integer({ minimum: 1 })),
    before: Type.Optional(Type.String({ maxLength: 64 })),
  },
  { additionalProperties: false },
);

export const WebhookTestBody = Type.Object({ url: WebhookUrl }, { additionalProperties: false });

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) =>
  Type.Union([t, Type.Null()]);

export const DeliveryAttempt = Type.Object({
  attemptedAt: Type.String(),
  outcome: Type.Union([
    Type.Literal('delivered'),
    Type.Literal('retrying'),
    Type.Literal('failed'),
    Type.Literal('dropped'),
  ]),
  status: Nullable(Type.Integer()),
  durationMs: Type.Integer(),
  error: Nullable(Type.String()),
  response: Nullable(Type.String()),
});

export const WebhookDelivery = Type.Object({
  id: Type.String(),
  submissionId: Nullable(Type.String()),
  test: Type.Boolean(),
  target: Type.String(),
  status: Type.Union([
    Type.Literal('pending'),
    Type.Literal('delivered'),
    Type.Literal('failed'),
    Type.Literal('dropped'),
  ]),
  attempts: Type.Integer(),
  createdAt: Type.String(),
  deliveredAt: Nullable(Type.String()),
  nextAttemptAt: Nullable(Type.String()),
  attemptLog: Type.Array(DeliveryAttempt),
});

export const DeliveryLog = Type.Object({ deliveries: Type.Array(WebhookDelivery) });
export const Redelivered = Type.Object({ id: Type.String(), queued: Type.Integer() });

/** A webhook's delivery log, test sends and one delivery's redeliver (docs/forms.md#webhooks). */
export function registerWebhookRoutes(app: App, deps: RouteDeps): void {
  const onRequest = adminAuth(deps);
  const service = deps.webhookLog;

  app.get(
    '/api/orgs/:org/forms/:form/webhooks/deliveries',
    {
      onRequest,
      schema: {
        params: FormParams,
        querystring: DeliveryLogQuery,
        response: { 200: DeliveryLog, ...errors },
      },
    },
    async (request) => {
      const { org, form } = request.params;
      const { url, limit, before } = request.query;
      return { deliveries: await service.list(org, form, url, { limit, before }) };
    },
  );

  app.post(
    '/api/orgs/:org/forms/:form/webhooks/test',
    {
      onRequest,
      schema: {
        params: FormParams,
        body: WebhookTestBody,
        response: { 200: WebhookDelivery, ...errors },
      },
    },
    async (request) => {
      const { org, form } = request.params;
      return service.sendTest(org, form, request.body.url);
    },
  );

  app.post(
    '/api/orgs/:org/forms/:form/deliveries/:id/redeliver',
    {
      onRequest,
      schema: {
        params: DeliveryParams,
        response: { 202: Redelivered, 409: ErrorBody, ...errors },
      },
    },
    async (request, reply) => {
      const { org, form, id } = request.params;
      return reply.code(202).send(await service.redeliver(org, form, id));
    },
  );
}
