import { adminAuth } from './admin-auth.js';
import type { App, RouteDeps } from './app.js';
import { adminErrors, errorAnswers } from '../wire/errors.js';
import {
  DeliveryLog,
  DeliveryLogQuery,
  DeliveryParams,
  FormParams,
  OrgParams,
  Redelivered,
  TargetCheck,
  WebhookDelivery,
  WebhookTestBody,
} from '../wire/webhook-deliveries.js';

const errors = errorAnswers(...adminErrors);

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
    '/api/orgs/:org/webhooks/check',
    {
      onRequest,
      schema: {
        params: OrgParams,
        body: WebhookTestBody,
        response: { 200: TargetCheck, ...errors },
      },
    },
    async (request) => service.checkTarget(request.body.url),
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
        response: { 202: Redelivered, ...errorAnswers(...adminErrors, 409) },
      },
    },
    async (request, reply) => {
      const { org, form, id } = request.params;
      return reply.code(202).send(await service.redeliver(org, form, id));
    },
  );
}
