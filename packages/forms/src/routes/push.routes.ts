import { adminErrors, bodyErrors, errorAnswers, NoContent } from '../wire/errors.js';
import { OrgParams, SubscribeBody, Subscribed, UnsubscribeBody, VapidKey } from '../wire/push.js';
import { adminAuth } from './admin-auth.js';
import type { App, RouteDeps } from './app.js';

const bodyRouteErrors = errorAnswers(...adminErrors, ...bodyErrors);

/**
 * Web Push (docs/forms.md#push-service-web-app): the VAPID key is public; subscribing needs a
 * token.
 */
export function registerPushRoutes(app: App, deps: RouteDeps): void {
  const { push } = deps;
  const onRequest = adminAuth(deps);

  app.get(
    '/api/push/vapid',
    { schema: { response: { 200: VapidKey, ...errorAnswers() } } },
    () => ({
      publicKey: deps.vapid.publicKey,
    }),
  );

  app.post(
    '/api/orgs/:org/push/subscribe',
    {
      onRequest,
      schema: {
        params: OrgParams,
        body: SubscribeBody,
        response: { 201: Subscribed, ...bodyRouteErrors },
      },
    },
    async (request, reply) => {
      await push.subscribe(request.params.org, request.body);
      return reply.code(201).send({ endpoint: request.body.endpoint });
    },
  );

  app.post(
    '/api/orgs/:org/push/unsubscribe',
    {
      onRequest,
      schema: {
        params: OrgParams,
        body: UnsubscribeBody,
        response: { 204: NoContent, ...bodyRouteErrors },
      },
    },
    async (request, reply) => {
      await push.unsubscribe(request.params.org, request.body.endpoint);
      return reply.code(204).send(null);
    },
  );
}
