import { Type, type Static } from 'typebox';
import { ArtifactDescriptor } from './artifact.schema.js';
import { pageOptions, ProfileInput, shotOptions } from './render.schema.js';

// The bodies and answers of the content endpoints (docs/render.md#content-endpoints): each takes
// the page fields of a render (url or html, waits, network, profile) plus its own.

const page = { ...pageOptions, profile: Type.Optional(ProfileInput) };

export const ContentBody = Type.Object(page);
export type ContentBody = Static<typeof ContentBody>;

export const MarkdownBody = Type.Object({
  ...page,
  mode: Type.Optional(
    Type.Union([Type.Literal('article'), Type.Literal('full')], {
      description:
        '`article` (default): the main content found by Readability; `full`: the whole visible page.',
    }),
  ),
});
export type MarkdownBody = Static<typeof MarkdownBody>;

export const LinksBody = Type.Object({
  ...page,
  visibleOnly: Type.Optional(Type.Boolean({ description: 'Only links a reader can see.' })),
  sameOriginOnly: Type.Optional(
    Type.Boolean({ description: "Only links to the page's own origin." }),
  ),
});
export type LinksBody = Static<typeof LinksBody>;

export const ScrapeElement = Type.Object({
  selector: Type.String({ minLength: 1, maxLength: 4096, description: 'A CSS selector.' }),
  attributes: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 256 }), {
      maxItems: 100,
      description: 'Attributes to return; all of them when left out.',
    }),
  ),
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 1000, description: 'Matches to return; default 100.' }),
  ),
});

export const ScrapeBody = Type.Object({
  ...page,
  elements: Type.Array(ScrapeElement, { minItems: 1, maxItems: 50 }),
});
export type ScrapeBody = Static<typeof ScrapeBody>;

export const SnapshotBody = Type.Object({
  ...page,
  ...shotOptions,
  format: Type.Optional(
    Type.Union([Type.Literal('png'), Type.Literal('jpeg')], {
      description: 'Of the screenshot; default `png`.',
    }),
  ),
});
export type SnapshotBody = Static<typeof SnapshotBody>;

/** What every content answer carries. */
const common = {
  profile: Type.String(),
  url: Type.String({ description: 'The final URL, after redirects; about:blank for `html`.' }),
  title: Type.String(),
  status: Type.Union([Type.Integer(), Type.Null()], {
    description: 'HTTP status of the main response; null for `html`.',
  }),
  truncated: Type.Boolean({ description: 'The text was cut at MAX_CONTENT_BYTES.' }),
  ms: Type.Integer(),
  artifact: Type.Optional(ArtifactDescriptor),
};

export const ContentResult = Type.Object({ ...common, html: Type.String() });

export const MarkdownResult = Type.Object({
  ...common,
  markdown: Type.String(),
  byline: Type.Union([Type.String(), Type.Null()]),
  mode: Type.Union([Type.Literal('article'), Type.Literal('full')], {
    description: 'What was converted: `full` when no article was found.',
  }),
});

export const LinksResult = Type.Object({
  ...common,
  links: Type.Array(Type.Object({ href: Type.String(), text: Type.String(), rel: Type.String() })),
});

export const ScrapeResult = Type.Object({
  ...common,
  results: Type.Array(
    Type.Object({
      selector: Type.String(),
      matches: Type.Array(
        Type.Object({
          text: Type.String(),
          html: Type.String(),
          attributes: Type.Record(Type.String(), Type.String()),
          box: Type.Object({
            x: Type.Number(),
            y: Type.Number(),
            width: Type.Number(),
            height: Type.Number(),
          }),
        }),
      ),
    }),
  ),
});

export const SnapshotResult = Type.Object({
  ...common,
  html: Type.String(),
  screenshot: Type.Object({
    contentType: Type.String(),
    bytes: Type.Integer(),
    artifact: Type.Optional(ArtifactDescriptor),
    base64: Type.Optional(Type.String()),
  }),
});
