import { Type, type Static } from '@fastify/type-provider-typebox';

// docs/forms.md#push-service-web-app: health and version, no token.

export const Health = Type.Object({ ok: Type.Literal(true) }, { additionalProperties: false });

export const Version = Type.Object(
  {
    version: Type.String({ description: 'The package version' }),
    uptimeSec: Type.Integer({ minimum: 0 }),
  },
  { additionalProperties: false },
);

export type HealthAnswer = Static<typeof Health>;
export type VersionAnswer = Static<typeof Version>;
