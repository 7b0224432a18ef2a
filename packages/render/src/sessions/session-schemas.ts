import { Type, type Static } from 'typebox';
import { ArtifactDescriptor } from '../schemas/artifact.schema.js';
import { Cookie } from '../schemas/render.schema.js';

// Request and response schemas of docs/sessions.md#endpoints. Unknown body fields are ignored, as
// in every body, but not unknown `record` options; a bad field answers 400 naming it.

const Labels = Type.Record(Type.String(), Type.String());

/** A render's cookie; a session refuses a nameless one up front, before its browser starts. */
const SessionCookie = Type.Object({ ...Cookie.properties, name: Type.String({ minLength: 1 }) });

/** fps 1..30, quality 1..100, maxFrames 1..100000 (docs/sessions.md#open-a-session). */
const RecordObject = Type.Object(
  {
    fps: Type.Optional(Type.Integer({ minimum: 1, maximum: 30 })),
    quality: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
    maxFrames: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
  },
  // A typo (`fsp`) would silently record at the default rate: refuse what is not an option.
  { additionalProperties: false },
);

/** A lease under a second is a mistake, not a wish; the upper clamp is SESSION_MAX_TTL_MS. */
const TtlMs = Type.Number({ minimum: 1000 });

export const CreateSessionBody = Type.Object({
  url: Type.Optional(Type.String({ minLength: 1 })),
  profile: Type.Optional(Type.Union([Type.String({ minLength: 1 }), Type.Object({})])),
  ttlMs: Type.Optional(TtlMs),
  record: Type.Optional(Type.Union([Type.Boolean(), RecordObject])),
  headers: Type.Optional(Type.Record(Type.String(), Type.String())),
  cookies: Type.Optional(Type.Array(SessionCookie)),
  insecureTls: Type.Optional(Type.Boolean()),
  labels: Type.Optional(Labels),
  state: Type.Optional(
    Type.String({
      minLength: 1,
      description:
        'A saved browser state to start from (docs/sessions.md#log-in-once-render-many-times).',
    }),
  ),
});
export type CreateSessionBody = Static<typeof CreateSessionBody>;

export const ScreenshotBody = Type.Object({
  selector: Type.Optional(Type.String({ minLength: 1 })),
  fullPage: Type.Optional(Type.Boolean()),
  format: Type.Optional(Type.Union([Type.Literal('png'), Type.Literal('jpeg')])),
  label: Type.Optional(Type.String()),
});
export type ScreenshotBody = Static<typeof ScreenshotBody>;

export const TouchBody = Type.Object({ ttlMs: Type.Optional(TtlMs) });
export type TouchBody = Static<typeof TouchBody>;

export const SessionParams = Type.Object({ id: Type.String() });

export const CloseQuery = Type.Object({
  saveState: Type.Optional(
    Type.String({ description: "Saves the session's state under this name before it closes." }),
  ),
});
export type SessionParams = Static<typeof SessionParams>;

const SessionEvent = Type.Object({ at: Type.String(), message: Type.String() });
export type SessionEvent = Static<typeof SessionEvent>;

const SessionEvents = Type.Array(SessionEvent, {
  description: 'What no status said, oldest first (a download cancelled, a page closed).',
});

/** docs/sessions.md#after-a-session-closes: a live session's events, or a closed one's and why it ended. */
export const SessionEventsSchema = Type.Object({
  id: Type.String(),
  state: Type.Union([Type.Literal('live'), Type.Literal('closed')]),
  closedAt: Type.Optional(Type.String()),
  closedBecause: Type.Optional(
    Type.Union(
      [
        Type.Literal('deleted'),
        Type.Literal('lease expired'),
        Type.Literal('browser exited'),
        Type.Literal('over its memory bound'),
        Type.Literal('over its disk bound'),
        Type.Literal('service shutdown'),
      ],
      { description: 'How the session ended.' },
    ),
  ),
  events: SessionEvents,
});

/** docs/sessions.md#open-a-session; `cdpUrl`, `liveUrl` and `watchUrl` only in the creation response. */
export const SessionDescriptorSchema = Type.Object({
  id: Type.String(),
  profile: Type.String(),
  createdAt: Type.String(),
  expiresAt: Type.String(),
  recording: Type.Boolean(),
  frames: Type.Integer(),
  pages: Type.Integer(),
  attached: Type.Integer(),
  artifacts: Type.Array(ArtifactDescriptor),
  events: SessionEvents,
  cdpUrl: Type.Optional(Type.String()),
  liveUrl: Type.Optional(Type.String()),
  watchUrl: Type.Optional(Type.String()),
});
