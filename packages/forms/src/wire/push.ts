import { Type, type Static } from '@fastify/type-provider-typebox';

// docs/forms.md#push-service-web-app and #web-push.

export { OrgParams } from './orgs.js';

const Endpoint = Type.String({ minLength: 1, maxLength: 2048 });

/** The browser's PushSubscription JSON. */
export const SubscribeBody = Type.Object({
  endpoint: Endpoint,
  expirationTime: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
  keys: Type.Object({
    p256dh: Type.String({ minLength: 1, maxLength: 200 }),
    auth: Type.String({ minLength: 1, maxLength: 100 }),
  }),
});
export const UnsubscribeBody = Type.Object({ endpoint: Endpoint });

export const Subscribed = Type.Object({ endpoint: Type.String() }, { additionalProperties: false });
export const VapidKey = Type.Object(
  { publicKey: Type.String({ description: 'The VAPID public key, base64url' }) },
  { additionalProperties: false },
);

export type VapidKeyAnswer = Static<typeof VapidKey>;
