import { Type } from '@fastify/type-provider-typebox';
import { adminAuth } from './admin-auth.js';
import type { App, RouteDeps } from './app.js';

const OrgParams = Type.Object({ org: Type.String() });
const Endpoint = Type.String({ minLength: 1, maxLength: 2048 });

/**
 * Web Push (docs/forms.md#push-service-web-app): the VAPID key is public; subscribing needs a
 * token.
 */
export function registerPushRoutes(app: App, deps: RouteDeps): void {
  const { push } = deps;
  const onRequest = adminAuth(deps);

  app.get('/api/push/vapid', () => ({ publicKey: deps.vapid.publicKey }));

  app.post(
    '/api/orgs/:org/push/subscribe',
    {
      onRequest,
      schema: {
        params: OrgParams,
        // The browser's PushSubscription JSON.
        body: Type.Object({
          endpoint: Endpoint,
          expirationTime: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
          keys: Type.Object({
            p256dh: Type.String({ minLength: 1, maxLength: 200 }),
            auth: Type.String({ minLength: 1, maxLength: 100 }),
          }),
        }),
      },
    },
    async (request, reply) => {
      await push.subscribe(request.params.org, request.body);
      return reply.code(201).send({ endpoint: request.body.endpoint });
    },
  );

  app.post(
    '/api/orgs/:org/push/unsubscribe',
    { onRequest, schema: { params: OrgParams, body: Type.Object({ endpoint: Endpoint }) } },
    async (request, reply) => {
      await push.unsubscribe(request.params.org, request.body.endpoint);
      return reply.code(204).send();
    },
  );
}
