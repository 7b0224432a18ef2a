import { take } from '../browser/capture.js';
import {
  readContent,
  readElements,
  readLinks,
  readMarkdown,
  type PageContent,
  type PageFacts,
  type PageLink,
  type PageMarkdown,
  type ScrapeResult,
  type ScrapeSpec,
} from '../browser/extract.js';
import type { Profile } from '../profiles.js';
import { CONTENT_TYPES, type PreparedOptions } from './render-options.js';
import type { RenderService } from './render-service.js';

// The content endpoints (docs/render.md#content-endpoints): the same queue slot, page load,
// deadline and private-network checks as a render (RenderService.onPage), then a reading of the
// page in an isolated world instead of a capture. Every text is capped at MAX_CONTENT_BYTES.

interface Loaded {
  status: number | null;
  ms: number;
}

export class ContentService {
  readonly #render: RenderService;
  readonly #max: number;

  constructor(render: RenderService, maxContentBytes: number) {
    this.#render = render;
    this.#max = maxContentBytes;
  }

  async content(
    options: PreparedOptions,
    profile: Profile,
    signal: AbortSignal,
  ): Promise<PageContent & Loaded> {
    const { value, ms } = await this.#render.onPage(
      'content',
      { ...options, profile },
      signal,
      async ({ page, status }) => ({ ...(await readContent(page, this.#max)), status }),
    );
    return { ...value, ms };
  }

  async markdown(
    options: PreparedOptions,
    profile: Profile,
    mode: 'article' | 'full',
    signal: AbortSignal,
  ): Promise<PageMarkdown & Loaded> {
    const { value, ms } = await this.#render.onPage(
      'markdown',
      { ...options, profile },
      signal,
      async ({ page, status }) => ({
        ...(await readMarkdown(page, { mode, max: this.#max })),
        status,
      }),
    );
    return { ...value, ms };
  }

  async links(
    options: PreparedOptions,
    profile: Profile,
    filters: { visibleOnly: boolean; sameOriginOnly: boolean },
    signal: AbortSignal,
  ): Promise<{ links: PageLink[] } & PageFacts & Loaded> {
    const { value, ms } = await this.#render.onPage(
      'links',
      { ...options, profile },
      signal,
      async ({ page, status }) => ({
        ...(await readLinks(page, { ...filters, max: this.#max })),
        status,
      }),
    );
    return { ...value, ms };
  }

  async scrape(
    options: PreparedOptions,
    profile: Profile,
    elements: readonly ScrapeSpec[],
    signal: AbortSignal,
  ): Promise<{ results: ScrapeResult[] } & PageFacts & Loaded> {
    const { value, ms } = await this.#render.onPage(
      'scrape',
      { ...options, profile },
      signal,
      async ({ page, status }) => ({
        ...(await readElements(page, elements, this.#max)),
        status,
      }),
    );
    return { ...value, ms };
  }

  /** The content and a screenshot of one navigation. */
  async snapshot(
    options: PreparedOptions,
    profile: Profile,
    signal: AbortSignal,
  ): Promise<PageContent & Loaded & { shot: Buffer; contentType: string }> {
    const job = { ...options, profile };
    const { value, ms } = await this.#render.onPage(
      'snapshot',
      job,
      signal,
      async ({ page, status }, control) => {
        const content = await readContent(page, this.#max);
        const shot = await take(page, job, control);
        return { ...content, status, shot };
      },
    );
    return { ...value, ms, contentType: CONTENT_TYPES[options.format] };
  }
}
