import { Type } from 'typebox';
import { BUILT_IN_PROFILES } from '../profiles.js';
import type { App } from '../server-context.js';

const Length = Type.String();
const Profile = Type.Object({
  name: Type.String(),
  viewport: Type.Object({ width: Type.Integer(), height: Type.Integer() }),
  deviceScaleFactor: Type.Number(),
  isMobile: Type.Boolean(),
  hasTouch: Type.Boolean(),
  colorScheme: Type.String(),
  locale: Type.String(),
  timezone: Type.String(),
  paper: Type.Optional(
    Type.Object({
      format: Type.Optional(Type.String()),
      width: Type.Optional(Length),
      height: Type.Optional(Length),
      landscape: Type.Optional(Type.Boolean()),
      margin: Type.Object({ top: Length, right: Length, bottom: Length, left: Length }),
    }),
  ),
});

/** GET /v1/profiles (docs/render.md#get-v1profiles): `{ profiles: [...] }` in that order. */
export function profilesRoutes(app: App): void {
  app.get(
    '/v1/profiles',
    {
      config: { access: 'service' },
      schema: { response: { 200: Type.Object({ profiles: Type.Array(Profile) }) } },
    },
    () => ({
      profiles: [...BUILT_IN_PROFILES],
    }),
  );
}
