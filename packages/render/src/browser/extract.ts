import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { CaptureInputError } from './capture-errors.js';
import { PAGE_LIB } from './page-scripts.js';

// Reads a loaded page for the content endpoints (docs/render.md#content-endpoints), in an isolated
// world made over CDP (Page.createIsolatedWorld, then Runtime.evaluate with its context id).
// Playwright's page.evaluate runs in the page's main world, where the page's scripts can replace
// document.querySelectorAll, Node.prototype.textContent or JSON.stringify and so choose what the
// service answers; an isolated world shares the DOM but none of those objects. Results come back
// by value (CDP's own serialisation), never through the page's JSON.
//
// Markdown runs Readability and turndown in that world too, on the live DOM, rather than in Node
// on serialised HTML (linkedom, jsdom): only the live page knows what is hidden (computed style)
// and what every link resolves to, the HTML needs no second parse, and the service's event loop
// stays free while a large page is converted.

const require = createRequire(import.meta.url);

/** A CommonJS or UMD file as an expression yielding its module.exports. */
function moduleExpression(specifier: string): string {
  const source = readFileSync(require.resolve(specifier), 'utf8');
  return `(function () { var module = { exports: {} }; var exports = module.exports;\n${source}\n;return module.exports; })()`;
}

let markdownLibs: string | undefined;
/** Readability, turndown (its browser build) and the GFM plugin, read once. */
function markdownLibraries(): string {
  markdownLibs ??= [
    moduleExpression('@mozilla/readability/Readability.js'),
    moduleExpression('turndown/lib/turndown.browser.umd.js'),
    moduleExpression('@joplin/turndown-plugin-gfm/lib/turndown-plugin-gfm.cjs.js'),
  ].join(',\n');
  return markdownLibs;
}

interface EvaluateResult {
  result: { value?: unknown };
  exceptionDetails?: { exception?: { description?: string }; text: string };
}

/** Evaluates `expression` in a fresh isolated world of the page's main frame; returns its value. */
async function inIsolatedWorld<T>(page: Page, expression: string): Promise<T> {
  const cdp = await page.context().newCDPSession(page);
  try {
    const { frameTree } = await cdp.send('Page.getFrameTree');
    const { executionContextId } = await cdp.send('Page.createIsolatedWorld', {
      frameId: frameTree.frame.id,
      worldName: 'havn-extract',
    });
    const answer = (await cdp.send('Runtime.evaluate', {
      expression,
      contextId: executionContextId,
      returnByValue: true,
      awaitPromise: true,
    })) as EvaluateResult;
    if (answer.exceptionDetails) {
      const e = answer.exceptionDetails;
      throw new Error(`reading the page failed: ${e.exception?.description ?? e.text}`);
    }
    return answer.result.value as T;
  } finally {
    // Not awaited: the answer is in hand, and closing the context detaches the session anyway;
    // waiting would add a round trip to Chromium to every reading (docs/benchmarks.md#render).
    void cdp.detach().catch(() => undefined);
  }
}

/** The expression calling one function of PAGE_LIB with `options` and extra argument expressions. */
export function pageCallExpression(fn: string, options: object, extra = ''): string {
  return `${PAGE_LIB}.${fn}(${JSON.stringify(options)}${extra ? `,\n${extra}` : ''})`;
}

/** The markdown reading as one expression (the benchmark runs it in a bare page too). */
export function markdownExpression(options: { mode: 'article' | 'full'; max: number }): string {
  return pageCallExpression('markdown', options, markdownLibraries());
}

/** Calls one function of PAGE_LIB in the page's isolated world. */
function call<T>(page: Page, fn: string, options: object, extra = ''): Promise<T> {
  return inIsolatedWorld<T>(page, pageCallExpression(fn, options, extra));
}

/** What every reading says of the page besides its content. */
export interface PageFacts {
  title: string;
  /** location.href: the final URL, after redirects. */
  url: string;
  truncated: boolean;
}

export interface PageContent extends PageFacts {
  html: string;
}

/** The serialised DOM (with its doctype), the title and the URL. */
export function readContent(page: Page, max: number): Promise<PageContent> {
  return call(page, 'content', { max });
}

export interface PageLink {
  href: string;
  text: string;
  rel: string;
}

/** Every link, absolute, deduplicated by href, in document order. */
export function readLinks(
  page: Page,
  options: { visibleOnly: boolean; sameOriginOnly: boolean; max: number },
): Promise<{ links: PageLink[] } & PageFacts> {
  return call(page, 'links', options);
}

export interface ScrapeSpec {
  selector: string;
  attributes?: string[] | undefined;
  limit: number;
}

export interface ScrapeMatch {
  text: string;
  html: string;
  attributes: Record<string, string>;
  box: { x: number; y: number; width: number; height: number };
}

export interface ScrapeResult {
  selector: string;
  matches: ScrapeMatch[];
}

/** The elements each CSS selector matches; an invalid selector is a 400 naming it. */
export async function readElements(
  page: Page,
  elements: readonly ScrapeSpec[],
  max: number,
): Promise<{ results: ScrapeResult[] } & PageFacts> {
  const answer = await call<{ invalid: number } | ({ results: ScrapeResult[] } & PageFacts)>(
    page,
    'scrape',
    { elements, max },
  );
  if ('invalid' in answer) {
    const spec = elements[answer.invalid];
    throw new CaptureInputError(
      `elements[${answer.invalid}].selector`,
      `${JSON.stringify(spec?.selector ?? '')} is not a valid CSS selector`,
    );
  }
  return answer;
}

export interface PageMarkdown extends PageFacts {
  markdown: string;
  byline: string | null;
  mode: 'article' | 'full';
}

/** The page as Markdown: its main article (Readability), or all of its visible body. */
export function readMarkdown(
  page: Page,
  options: { mode: 'article' | 'full'; max: number },
): Promise<PageMarkdown> {
  return inIsolatedWorld(page, markdownExpression(options));
}
