import { Type } from '@fastify/type-provider-typebox';
import { HttpError } from '@havn/shared';
import { adminAuth } from './admin-auth.js';
import type { App, RouteDeps } from './app.js';

const OrgParams = Type.Object({ org: Type.String() });
const Endpoint = Type.String({ minLength: 1, maxLength: 2048 });

/** Web Push (spec 2 §4.5): the VAPID key is public; subscribing needs a token (0-decisions §2). */
export function registerPushRoutes(app: App, deps: RouteDeps): void {
  const { store } = deps;
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
      const { endpoint, keys, expirationTime } = request.body;
      let url: URL;
      try {
        url = new URL(endpoint);
      } catch {
        throw new HttpError(400, 'endpoint: not a URL');
      }
      // Push services are HTTPS; plain http only where private targets are allowed (tests, LANs).
      if (
        url.protocol !== 'https:' &&
        !(url.protocol === 'http:' && deps.config.allowPrivateWebhooks)
      ) {
        throw new HttpError(400, 'endpoint: must be an https URL');
      }
      if (Buffer.from(keys.p256dh, 'base64url').length !== 65) {
        throw new HttpError(
          400,
          'keys.p256dh: must be an uncompressed P-256 public key (base64url)',
        );
      }
      if (Buffer.from(keys.auth, 'base64url').length !== 16) {
        throw new HttpError(400, 'keys.auth: must be a 16-byte secret (base64url)');
      }
      await store.push.upsert({
        id: deps.newId('sub'),
        orgSlug: request.params.org,
        endpoint,
        p256dh: keys.p256dh,
        auth: keys.auth,
        expirationTime: expirationTime ?? null,
        createdAt: new Date(deps.now()).toISOString(),
      });
      return reply.code(201).send({ endpoint });
    },
  );

  app.post(
    '/api/orgs/:org/push/unsubscribe',
    { onRequest, schema: { params: OrgParams, body: Type.Object({ endpoint: Endpoint }) } },
    async (request, reply) => {
      await store.push.remove(request.params.org, request.body.endpoint);
      return reply.code(204).send();
    },
  );
}
