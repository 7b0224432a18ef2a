import { Type, type Static } from '@fastify/type-provider-typebox';
import { FormParams } from './forms.js';
import { OrgParams } from './orgs.js';

export { FormParams, OrgParams };

// The request and response shapes of routes/webhooks.routes.ts (docs/forms.md#webhooks): a
// webhook's delivery log, a test send, one delivery's redeliver.

export const DeliveryParams = Type.Object({
  ...FormParams.properties,
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

/** Whether the address policy lets deliveries reach a URL (docs/forms.md#outbound-safety). */
export const TargetCheck = Type.Object(
  {
    url: Type.String(),
    deliverable: Type.Boolean(),
    problem: Type.Union([Type.String(), Type.Null()], {
      description: 'Why the server would refuse it, and the setting that allows it',
    }),
  },
  { additionalProperties: false },
);
export type TargetCheckAnswer = Static<typeof TargetCheck>;

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

/** One delivery to a webhook with its attempts, newest first. */
export type WebhookDeliveryAnswer = Static<typeof WebhookDelivery>;
/** One attempt of a delivery. */
export type DeliveryAttemptAnswer = Static<typeof DeliveryAttempt>;
