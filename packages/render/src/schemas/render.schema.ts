import { Type, type Static } from 'typebox';
import { PDF_PERMISSIONS } from '../pdf/pdf-protect.js';
import { ArtifactDescriptor } from './artifact.schema.js';

// The request and response shapes of POST /v1/render and /v1/render/batch
// (docs/render.md#post-v1render), declared once: Fastify validates with them, handlers take their
// types from them, and the OpenAPI document is generated from them. Objects leave
// additionalProperties open: unknown body fields are ignored.

const Str = (description: string, extra: object = {}) => Type.String({ description, ...extra });

export const ProfileInput = Type.Union(
  [
    Type.String({ description: 'A built-in profile name (GET /v1/profiles).' }),
    Type.Object(
      {},
      {
        description:
          'An inline profile: any profile fields (viewport, deviceScaleFactor, isMobile, hasTouch, colorScheme, locale, timezone, paper); inherits from `desktop`, or from the built-in named in `name`.',
      },
    ),
  ],
  { description: 'Built-in profile name or inline profile; default `desktop`.' },
);

export const Cookie = Type.Object({
  name: Type.String(),
  value: Type.String(),
  url: Type.Optional(Type.String()),
  domain: Type.Optional(Type.String()),
  path: Type.Optional(Type.String()),
  expires: Type.Optional(
    Type.Number({ description: 'Unix time in seconds; -1 for a session cookie.' }),
  ),
  httpOnly: Type.Optional(Type.Boolean()),
  secure: Type.Optional(Type.Boolean()),
  sameSite: Type.Optional(
    Type.Union([Type.Literal('Strict'), Type.Literal('Lax'), Type.Literal('None')]),
  ),
});

/** A CSS length ("10mm", "0.5in", "20px") or a number of CSS pixels. */
const Length = Type.Union([Type.String({ maxLength: 32 }), Type.Number({ minimum: 0 })]);

const Password = (description: string) =>
  Type.String({ minLength: 1, maxLength: 127, description });

/** The `pdf` object of a render (docs/render.md#pdf-options). */
export const PdfOptions = Type.Object(
  {
    landscape: Type.Optional(Type.Boolean({ description: "Overrides the profile's paper." })),
    scale: Type.Optional(
      Type.Number({ minimum: 0.1, maximum: 2, description: "Chromium's range; default 1." }),
    ),
    pageRanges: Type.Optional(
      Type.String({
        maxLength: 1000,
        pattern: '^\\s*\\d+\\s*(-\\s*\\d+\\s*)?(,\\s*\\d+\\s*(-\\s*\\d+\\s*)?)*$',
        description: 'Pages to print, such as "1-3, 5"; default all.',
      }),
    ),
    preferCSSPageSize: Type.Optional(
      Type.Boolean({ description: "The page's CSS @page size wins over the paper." }),
    ),
    margin: Type.Optional(
      Type.Object(
        {
          top: Type.Optional(Length),
          right: Type.Optional(Length),
          bottom: Type.Optional(Length),
          left: Type.Optional(Length),
        },
        { description: "Overrides the profile's margins, side by side." },
      ),
    ),
    printBackground: Type.Optional(Type.Boolean({ description: 'Default true.' })),
    displayHeaderFooter: Type.Optional(
      Type.Boolean({ description: 'Print a header and footer; default footer "Page N of M".' }),
    ),
    headerTemplate: Type.Optional(
      Str('HTML with classes pageNumber, totalPages, date, title, url; capped in bytes.'),
    ),
    footerTemplate: Type.Optional(
      Str('HTML with classes pageNumber, totalPages, date, title, url; capped in bytes.'),
    ),
    outline: Type.Optional(Type.Boolean({ description: 'Bookmarks from the headings.' })),
    tagged: Type.Optional(Type.Boolean({ description: 'A tagged (accessible) PDF.' })),
    metadata: Type.Optional(
      Type.Object(
        {
          title: Type.Optional(Type.String({ maxLength: 1000 })),
          author: Type.Optional(Type.String({ maxLength: 1000 })),
          subject: Type.Optional(Type.String({ maxLength: 1000 })),
          keywords: Type.Optional(Type.Array(Type.String({ maxLength: 200 }), { maxItems: 100 })),
          creator: Type.Optional(Type.String({ maxLength: 1000 })),
        },
        { description: 'Written into the info dictionary and the XMP metadata.' },
      ),
    ),
    encrypt: Type.Optional(
      Type.Object(
        {
          userPassword: Type.Optional(Password('Needed to open the document; default none.')),
          ownerPassword: Password('Needed to change permissions.'),
          permissions: Type.Optional(
            Type.Array(Type.Union(PDF_PERMISSIONS.map((p) => Type.Literal(p))), {
              uniqueItems: true,
              description: 'What a reader may do without the owner password; default nothing.',
            }),
          ),
        },
        { description: 'AES-256 protection; passwords are never logged or stored.' },
      ),
    ),
  },
  { description: 'PDF options; only with format `pdf`.' },
);
export type PdfOptions = Static<typeof PdfOptions>;

export const Labels = Type.Record(Type.String(), Type.String({ maxLength: 1024 }), {
  description: 'Stored on the artifact.',
});

/**
 * The fields that load a page (input, waits, network, return, labels): every render and every
 * content endpoint takes them (docs/render.md#content-endpoints).
 */
export const pageOptions = {
  url: Type.Optional(Str('Page to render; http or https only. Exclusive with `html`.')),
  html: Type.Optional(Str('HTML to render, up to MAX_HTML_BYTES. Exclusive with `url`.')),
  baseUrl: Type.Optional(
    Str('Injected as <base href> so relative assets resolve. Only with `html`.'),
  ),
  waitUntil: Type.Optional(
    Type.Union(
      [
        Type.Literal('load'),
        Type.Literal('domcontentloaded'),
        Type.Literal('networkidle'),
        Type.Literal('commit'),
      ],
      { description: 'Navigation gate; default `load`.' },
    ),
  ),
  waitForSelector: Type.Optional(Str('Wait for this element before capturing.', { minLength: 1 })),
  waitForTimeout: Type.Optional(Type.Number({ minimum: 0, description: 'Flat wait in ms.' })),
  waitForFonts: Type.Optional(
    Type.Boolean({ description: 'Await document.fonts.ready; default true.' }),
  ),
  styles: Type.Optional(Str('CSS injected after load.')),
  headers: Type.Optional(
    Type.Record(Type.String(), Type.String(), { description: 'Extra request headers.' }),
  ),
  cookies: Type.Optional(Type.Array(Cookie, { maxItems: 200 })),
  userAgent: Type.Optional(Str('Overrides the user agent.', { minLength: 1 })),
  insecureTls: Type.Optional(
    Type.Boolean({ description: 'Honoured only with ALLOW_INSECURE_TLS=1.' }),
  ),
  return: Type.Optional(
    Type.Union([Type.Literal('url'), Type.Literal('base64')], { description: 'Default `url`.' }),
  ),
  labels: Type.Optional(Labels),
};

/** The fields of an image capture (a render, a snapshot's screenshot). */
export const shotOptions = {
  quality: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: '`jpeg` only.' })),
  fullPage: Type.Optional(Type.Boolean({ description: 'Whole scroll height. Not with `pdf`.' })),
  selector: Type.Optional(
    Str('Capture one element. Exclusive with `clip`; not with `pdf`.', { minLength: 1 }),
  ),
  clip: Type.Optional(
    Type.Object(
      {
        x: Type.Number({ minimum: 0 }),
        y: Type.Number({ minimum: 0 }),
        width: Type.Number({ exclusiveMinimum: 0 }),
        height: Type.Number({ exclusiveMinimum: 0 }),
      },
      { description: 'Capture a rectangle (CSS pixels). Not with `pdf`.' },
    ),
  ),
  omitBackground: Type.Optional(Type.Boolean({ description: 'Transparent background (`png`).' })),
};

/** Every field of a render except `profile`, shared by single and batch renders. */
const renderOptions = {
  ...pageOptions,
  ...shotOptions,
  format: Type.Optional(
    Type.Union([Type.Literal('png'), Type.Literal('jpeg'), Type.Literal('pdf')], {
      description: 'Default `png`.',
    }),
  ),
  pdf: Type.Optional(PdfOptions),
  state: Type.Optional(
    Str('A saved browser state to start from (docs/sessions.md#log-in-once-render-many-times).', {
      minLength: 1,
    }),
  ),
};

export const RenderBody = Type.Object({ ...renderOptions, profile: Type.Optional(ProfileInput) });
export type RenderBody = Static<typeof RenderBody>;

export const BatchBody = Type.Object({
  ...renderOptions,
  profiles: Type.Array(ProfileInput, {
    minItems: 1,
    maxItems: 50,
    description: 'One result slot per profile, in this order.',
  }),
});
export type BatchBody = Static<typeof BatchBody>;

/** The fields both bodies share (everything but `profile` / `profiles`). */
export type RenderOptions = Omit<RenderBody, 'profile'>;

export const RenderResult = Type.Object({
  profile: Type.String(),
  artifact: Type.Optional(ArtifactDescriptor),
  base64: Type.Optional(Type.String()),
  contentType: Type.String(),
  bytes: Type.Integer(),
  ms: Type.Integer(),
});

export const BatchResult = Type.Object({
  results: Type.Array(
    Type.Union([
      Type.Object({ profile: Type.String(), artifact: ArtifactDescriptor, ms: Type.Integer() }),
      Type.Object({ profile: Type.String(), error: Type.String() }),
    ]),
  ),
});

export const ErrorBody = Type.Object({ error: Type.String() });

/**
 * What every route that loads a page can answer besides its result (docs/render.md#statuses): a
 * bad body, no token, a failed page, a full queue or a store that cannot be written, the
 * deadline, a full artifact disk.
 */
export const PAGE_ERRORS = {
  400: ErrorBody,
  401: ErrorBody,
  502: ErrorBody,
  503: ErrorBody,
  504: ErrorBody,
  507: ErrorBody,
};
