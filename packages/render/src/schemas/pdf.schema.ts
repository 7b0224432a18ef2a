import { Type, type Static } from 'typebox';
import { ArtifactDescriptor } from './artifact.schema.js';
import { Labels, pageOptions, PdfOptions, ProfileInput } from './render.schema.js';

// POST /v1/pdf/merge (docs/render.md#post-v1pdfmerge).

const MergeInput = Type.Object(
  {
    ...pageOptions,
    profile: Type.Optional(ProfileInput),
    format: Type.Optional(Type.Literal('pdf', { description: 'Inputs are always printed.' })),
    pdf: Type.Optional(PdfOptions),
    artifact: Type.Optional(
      Type.String({ minLength: 1, description: 'A stored PDF instead of a render.' }),
    ),
    title: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 1000,
        description: "This input's outline entry; default its document title.",
      }),
    ),
  },
  {
    description:
      'A render body (url or html, profile, waits, pdf options, …) or `{ artifact }` of a stored PDF.',
  },
);

export const MergeBody = Type.Object({
  inputs: Type.Array(MergeInput, { minItems: 1, maxItems: 50 }),
  pdf: Type.Optional(PdfOptions),
  return: Type.Optional(
    Type.Union([Type.Literal('url'), Type.Literal('base64')], { description: 'Default `url`.' }),
  ),
  labels: Type.Optional(Labels),
});
export type MergeBody = Static<typeof MergeBody>;
export type MergeInput = Static<typeof MergeInput>;

export const MergeResult = Type.Object({
  contentType: Type.Literal('application/pdf'),
  bytes: Type.Integer(),
  pages: Type.Integer(),
  ms: Type.Integer(),
  artifact: Type.Optional(ArtifactDescriptor),
  base64: Type.Optional(Type.String()),
});
