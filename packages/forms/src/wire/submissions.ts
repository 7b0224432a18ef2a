import { Type, type Static } from '@fastify/type-provider-typebox';

// docs/forms.md#submissions.

export const OrgFeedParams = Type.Object({ org: Type.String() });
export const FormFeedParams = Type.Object({ org: Type.String(), form: Type.String() });
export const SubmissionParams = Type.Object({
  org: Type.String(),
  form: Type.String(),
  id: Type.String(),
});

export const FeedQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, description: 'default 50, capped at 500' })),
  before: Type.Optional(Type.String({ description: 'a submission id: page to older ones' })),
  includeSpam: Type.Optional(Type.Boolean()),
});

export const ExportQuery = Type.Object({
  format: Type.Optional(Type.Union([Type.Literal('csv'), Type.Literal('json')])),
  since: Type.Optional(Type.String({ description: 'ISO 8601 date or date-time, included' })),
  until: Type.Optional(Type.String({ description: 'ISO 8601 date or date-time, excluded' })),
  choices: Type.Optional(
    Type.Union([Type.Literal('values'), Type.Literal('labels')], {
      description: 'values (the default) or labels: choice answers as their option labels',
    }),
  ),
});

/** Mark all read: up to and including this submission id (the newest one a person saw). */
export const ReadAllQuery = Type.Object({ through: Type.Optional(Type.String({ maxLength: 64 })) });
export const ReadAll = Type.Object(
  { marked: Type.Integer({ description: 'How many submissions were marked read' }) },
  { additionalProperties: false },
);

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) =>
  Type.Union([t, Type.Null()]);

export const SubmissionSummary = Type.Object(
  {
    id: Type.String(),
    org: Type.String(),
    form: Type.String(),
    receivedAt: Type.String(),
    read: Type.Boolean(),
    spam: Type.Boolean(),
    preview: Type.String({ description: 'The first answers, up to 140 characters' }),
  },
  { additionalProperties: false },
);
export const Feed = Type.Object(
  { submissions: Type.Array(SubmissionSummary) },
  { additionalProperties: false },
);

/** One outbox delivery of a submission: a webhook, a push or an email notice. */
export const Delivery = Type.Object(
  {
    id: Type.String(),
    kind: Type.Union([Type.Literal('webhook'), Type.Literal('push'), Type.Literal('email')]),
    target: Type.String(),
    status: Type.Union([
      Type.Literal('pending'),
      Type.Literal('delivered'),
      Type.Literal('failed'),
      Type.Literal('dropped'),
    ]),
    attempts: Type.Integer(),
    lastStatus: Nullable(Type.Integer()),
    lastError: Nullable(Type.String()),
    deliveredAt: Nullable(Type.String()),
    nextAttemptAt: Nullable(Type.String()),
  },
  { additionalProperties: false },
);

const Answers = Type.Record(Type.String(), Type.Unknown());

/**
 * A stored file, as a `file` question's answer lists it (docs/forms.md#file-uploads); admins
 * download it at `…/submissions/<id>/files/<fileId>`.
 */
export const FileAnswer = Type.Object(
  {
    name: Type.String({ description: 'The name it was sent under, hostile characters removed' }),
    size: Type.Integer({ description: 'Bytes' }),
    type: Type.String({ description: "The MIME type read from the file's own bytes" }),
    sha256: Type.String({ description: 'Hex SHA-256 of the bytes' }),
    id: Type.String(),
  },
  { additionalProperties: false },
);
export type FileAnswer = Static<typeof FileAnswer>;

export const FileParams = Type.Object({
  org: Type.String(),
  form: Type.String(),
  id: Type.String(),
  fileId: Type.String(),
});

/** A webhook's signed link instead of the token (docs/forms.md#file-uploads). */
export const FileQuery = Type.Object({
  expires: Type.Optional(Type.String({ pattern: '^[0-9]{1,12}$' })),
  signature: Type.Optional(Type.String({ maxLength: 100 })),
});

/** Fields of a full record (without deliveries): the JSON export's elements, minus the body. */
const recordFields = {
  ...SubmissionSummary.properties,
  answers: Answers,
  submitFields: Nullable(Answers),
  origin: Nullable(Type.String()),
  referer: Nullable(Type.String()),
  userAgent: Nullable(Type.String()),
  ip: Type.String(),
  definitionVersion: Nullable(Type.Integer()),
};

/** The full record: the summary, the answers and metadata, the raw body and its deliveries. */
export const Submission = Type.Object(
  {
    ...recordFields,
    body: Type.String({ description: 'The raw request body as received' }),
    deliveries: Type.Array(Delivery),
  },
  { additionalProperties: false },
);

/** A JSON export: every record, oldest first, without the raw body or deliveries. */
export const JsonExport = Type.Array(Type.Object(recordFields, { additionalProperties: false }));

export const ReadFlag = Type.Object(
  { id: Type.String(), read: Type.Boolean() },
  { additionalProperties: false },
);
export const Requeued = Type.Object(
  { id: Type.String(), queued: Type.Integer({ description: 'deliveries queued again' }) },
  { additionalProperties: false },
);

export type SubmissionSummaryAnswer = Static<typeof SubmissionSummary>;
export type SubmissionAnswer = Static<typeof Submission>;
export type DeliveryAnswer = Static<typeof Delivery>;
