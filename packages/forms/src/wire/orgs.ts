import { Type, type Static } from '@fastify/type-provider-typebox';

// docs/forms.md#organisations-and-tokens.

export const OrgParams = Type.Object({ org: Type.String() });
export const TokenParams = Type.Object({ org: Type.String(), id: Type.String() });

const Name = Type.String({ minLength: 1, maxLength: 200 });

export const CreateOrgBody = Type.Object({
  slug: Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,62}$' }),
  name: Name,
});
export const RenameOrgBody = Type.Object({ name: Name });
export const MintTokenBody = Type.Object({ label: Type.String({ minLength: 1, maxLength: 200 }) });

export const Org = Type.Object(
  { slug: Type.String(), name: Type.String(), createdAt: Type.String(), updatedAt: Type.String() },
  { additionalProperties: false },
);
export const OrgList = Type.Object({ orgs: Type.Array(Org) }, { additionalProperties: false });

/** An organisation token as listed: never its plaintext or its hash. */
export const TokenInfo = Type.Object(
  { id: Type.String(), label: Type.String(), createdAt: Type.String() },
  { additionalProperties: false },
);
export const TokenList = Type.Object(
  { tokens: Type.Array(TokenInfo) },
  { additionalProperties: false },
);
/** The mint answer: the only place the plaintext `token` ever appears. */
export const MintedToken = Type.Object(
  {
    id: Type.String(),
    label: Type.String(),
    createdAt: Type.String(),
    token: Type.String({ description: 'havn_…, shown once' }),
  },
  { additionalProperties: false },
);

export type OrgAnswer = Static<typeof Org>;
export type TokenInfoAnswer = Static<typeof TokenInfo>;
export type MintedTokenAnswer = Static<typeof MintedToken>;
