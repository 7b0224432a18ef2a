import { Type, type Static } from '@fastify/type-provider-typebox';
import { CreateOrgBody, Org } from './orgs.js';

// docs/forms.md#first-run-and-setup-links.

export const SetupBody = Type.Object({
  code: Type.String({ minLength: 1, maxLength: 200, description: 'The code of the setup link' }),
  slug: CreateOrgBody.properties.slug,
  name: CreateOrgBody.properties.name,
});

/** A used setup code: the new organisation and its first token (shown once). */
export const SetupDone = Type.Object(
  { org: Org, token: Type.String({ description: 'havn_…, an organisation token, shown once' }) },
  { additionalProperties: false },
);

export const SetupLink = Type.Object(
  {
    url: Type.String({ description: 'The inbox link that creates one organisation' }),
    expiresAt: Type.String({ description: 'When the link stops working (one hour)' }),
  },
  { additionalProperties: false },
);

export type SetupDoneAnswer = Static<typeof SetupDone>;
export type SetupLinkAnswer = Static<typeof SetupLink>;
