import { Type } from 'typebox';

// The artifact descriptor and the listing of GET /v1/artifacts (docs/render.md#get-v1artifacts),
// declared once for renders, sessions and the artifact routes.

export const ArtifactDescriptor = Type.Object({
  id: Type.String(),
  url: Type.String({ description: '/v1/artifacts/<id>' }),
  bytes: Type.Integer(),
  contentType: Type.String(),
  createdAt: Type.String({ description: 'ISO 8601 UTC with milliseconds.' }),
  labels: Type.Record(Type.String(), Type.String()),
  session: Type.Optional(
    Type.String({ description: 'The browser session that made it; absent for renders.' }),
  ),
});

export const ArtifactListQuery = Type.Object({
  session: Type.Optional(Type.String({ minLength: 1, description: 'Only this session’s.' })),
  label: Type.Optional(
    Type.Union([Type.String(), Type.Array(Type.String())], {
      description: '`key:value`; repeat for several, all must match.',
    }),
  ),
  // A query string carries text, and the service never coerces types: digits, parsed by the route.
  limit: Type.Optional(
    Type.String({ pattern: '^[0-9]{1,3}$', description: '1 to 500; default 50.' }),
  ),
  cursor: Type.Optional(Type.String({ description: 'The `cursor` of the previous page.' })),
});

export const ArtifactList = Type.Object({
  artifacts: Type.Array(ArtifactDescriptor),
  cursor: Type.Optional(Type.String({ description: 'Present when there is a next page.' })),
});
