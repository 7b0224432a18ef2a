import { renderErrors } from '../errors.js';
import {
  ContentBody,
  ContentResult,
  LinksBody,
  LinksResult,
  MarkdownBody,
  MarkdownResult,
  ScrapeBody,
  ScrapeResult,
  SnapshotBody,
  SnapshotResult,
} from '../schemas/content.schema.js';
import { PAGE_ERRORS, type RenderOptions } from '../schemas/render.schema.js';
import type { App } from '../server-context.js';
import type { ContentService } from '../services/content-service.js';
import { prepareOptions, renderProfile, type RenderLimits } from '../services/render-options.js';
import type { RenderService } from '../services/render-service.js';
import { clientSignal } from './client-signal.js';

// POST /v1/content, /v1/markdown, /v1/links, /v1/scrape and /v1/snapshot
// (docs/render.md#content-endpoints): the page fields of a render, validated by the same rules,
// checked against the same private-network policy before queueing.

/** The fields of a body that load the page; capture fields a client may send are not ours. */
const PAGE_FIELDS = [
  'url',
  'html',
  'baseUrl',
  'waitUntil',
  'waitForSelector',
  'waitForTimeout',
  'waitForFonts',
  'styles',
  'headers',
  'cookies',
  'userAgent',
  'insecureTls',
  'labels',
] as const;

function pageFields(body: RenderOptions): RenderOptions {
  return Object.fromEntries(PAGE_FIELDS.map((f) => [f, body[f]]));
}

export function contentRoutes(
  app: App,
  render: RenderService,
  content: ContentService,
  limits: RenderLimits,
): void {
  /** Validates a body's page fields and profile; refuses a private `url` before queueing. */
  async function load(body: RenderOptions & { profile?: unknown }, extra: RenderOptions = {}) {
    const options = prepareOptions({ ...pageFields(body), ...extra }, limits);
    const profile = renderProfile(body.profile, 'profile', options, limits);
    await render.checkTarget(options);
    return { options, profile };
  }

  /**
   * The answer is JSON either way; `return: "url"` stores the text as an artifact too. There is
   * no base64 form of a text.
   */
  function storeMode(body: { return?: 'url' | 'base64' | undefined }): boolean {
    if (body.return === 'base64') {
      throw renderErrors.error('BASE64_NOT_FOR_TEXT');
    }
    return body.return === 'url';
  }

  async function stored(
    keep: boolean,
    text: string,
    contentType: string,
    labels: Record<string, string>,
  ) {
    if (!keep) return {};
    const buffer = Buffer.from(text);
    return { artifact: await render.store({ buffer, contentType, ms: 0 }, labels) };
  }

  app.post(
    '/v1/content',
    {
      config: { access: 'service' },
      schema: { body: ContentBody, response: { 200: ContentResult, ...PAGE_ERRORS } },
    },
    async (request, reply) => {
      const keep = storeMode(request.body);
      const { options, profile } = await load(request.body);
      const read = await content.content(options, profile, clientSignal(reply));
      const artifact = await stored(keep, read.html, 'text/html; charset=utf-8', options.labels);
      return { profile: profile.name, ...read, ...artifact };
    },
  );

  app.post(
    '/v1/markdown',
    {
      config: { access: 'service' },
      schema: { body: MarkdownBody, response: { 200: MarkdownResult, ...PAGE_ERRORS } },
    },
    async (request, reply) => {
      const keep = storeMode(request.body);
      const { options, profile } = await load(request.body);
      const mode = request.body.mode ?? 'article';
      const read = await content.markdown(options, profile, mode, clientSignal(reply));
      const artifact = await stored(
        keep,
        read.markdown,
        'text/markdown; charset=utf-8',
        options.labels,
      );
      return { profile: profile.name, ...read, ...artifact };
    },
  );

  app.post(
    '/v1/links',
    {
      config: { access: 'service' },
      schema: { body: LinksBody, response: { 200: LinksResult, ...PAGE_ERRORS } },
    },
    async (request, reply) => {
      const keep = storeMode(request.body);
      const { options, profile } = await load(request.body);
      const filters = {
        visibleOnly: request.body.visibleOnly ?? false,
        sameOriginOnly: request.body.sameOriginOnly ?? false,
      };
      const read = await content.links(options, profile, filters, clientSignal(reply));
      const artifact = await stored(
        keep,
        JSON.stringify(read.links),
        'application/json',
        options.labels,
      );
      return { profile: profile.name, ...read, ...artifact };
    },
  );

  app.post(
    '/v1/scrape',
    {
      config: { access: 'service' },
      schema: { body: ScrapeBody, response: { 200: ScrapeResult, ...PAGE_ERRORS } },
    },
    async (request, reply) => {
      const keep = storeMode(request.body);
      const { options, profile } = await load(request.body);
      const elements = request.body.elements.map((e) => ({
        selector: e.selector,
        attributes: e.attributes,
        limit: e.limit ?? 100,
      }));
      const read = await content.scrape(options, profile, elements, clientSignal(reply));
      const artifact = await stored(
        keep,
        JSON.stringify(read.results),
        'application/json',
        options.labels,
      );
      return { profile: profile.name, ...read, ...artifact };
    },
  );

  app.post(
    '/v1/snapshot',
    {
      config: { access: 'service' },
      schema: { body: SnapshotBody, response: { 200: SnapshotResult, ...PAGE_ERRORS } },
    },
    async (request, reply) => {
      const b = request.body;
      const { options, profile } = await load(b, {
        format: b.format,
        quality: b.quality,
        fullPage: b.fullPage,
        selector: b.selector,
        clip: b.clip,
        omitBackground: b.omitBackground,
        return: b.return,
      });
      const { shot, contentType, ...read } = await content.snapshot(
        options,
        profile,
        clientSignal(reply),
      );
      const screenshot =
        options.returnMode === 'base64'
          ? { contentType, bytes: shot.length, base64: shot.toString('base64') }
          : {
              contentType,
              bytes: shot.length,
              artifact: await render.store(
                { buffer: shot, contentType, ms: read.ms },
                options.labels,
              ),
            };
      return { profile: profile.name, ...read, screenshot };
    },
  );
}
