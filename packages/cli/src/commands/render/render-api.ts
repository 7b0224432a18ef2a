// What the render commands share: the client for the profile (or --url and HAVN_RENDER_TOKEN),
// the page to render (a URL, or a local HTML file sent as `html`), device names, and progress
// on stderr (docs/cli.md#havn-render; the service's contract is docs/render.md).
import { readFile, stat } from 'node:fs/promises';
import { resolveService } from '../../config/service-config.js';
import type { CliContext } from '../../context.js';
import { CliError, UsageError } from '../../errors.js';
import { ServiceClient } from '../../upstream/service-client.js';

export interface RenderTargetOptions {
  readonly url?: string;
  readonly profile?: string;
}

export async function renderClient(
  ctx: CliContext,
  o: RenderTargetOptions,
): Promise<ServiceClient> {
  return new ServiceClient(await resolveService(ctx, 'render', o));
}

/** The body fields naming the page: `{ url }`, or `{ html, baseUrl? }` for a local file. */
export type PageInput = { url: string } | { html: string; baseUrl?: string };

/** The service refuses larger html (MAX_HTML_BYTES' default, docs/render.md#configuration). */
const MAX_HTML_BYTES = 5 * 1024 * 1024;

/**
 * `input` as the service takes it. An http(s) URL is rendered by the service. Anything else is a
 * local HTML file, sent as `html`: the service cannot read the file's directory, so its relative
 * images and stylesheets do not load, unless --base-url says where they are served
 * (docs/cli.md#local-files).
 */
export async function pageInput(input: string, baseUrl: string | undefined): Promise<PageInput> {
  if (/^https?:\/\//i.test(input)) {
    if (baseUrl !== undefined)
      throw new UsageError('--base-url applies only to a local HTML file.');
    return { url: input };
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(input) && !/^[a-z]:[\\/]/i.test(input)) {
    throw new UsageError(`<input> must be an http(s) URL or a local HTML file; got '${input}'.`);
  }
  let size: number;
  try {
    const info = await stat(input);
    if (!info.isFile()) throw new UsageError(`<input> '${input}' is not a file.`);
    size = info.size;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(
      `<input> must be an http(s) URL or a local HTML file; there is no file '${input}'.`,
    );
  }
  if (size > MAX_HTML_BYTES) {
    throw new CliError(
      `${input} is ${String(size)} bytes; the render service takes HTML up to ${String(MAX_HTML_BYTES)} bytes.`,
    );
  }
  const html = await readFile(input, 'utf8');
  if (baseUrl === undefined) return { html };
  if (!/^https?:\/\/[^/]/i.test(baseUrl)) {
    throw new UsageError(`--base-url must be an absolute http(s) URL; got '${baseUrl}'.`);
  }
  return { html, baseUrl };
}

/** A --device name as the service names its profiles (docs/render.md#get-v1profiles). */
export function deviceName(text: string, option = '--device'): string {
  const name = text.trim();
  if (!/^[a-z0-9][a-z0-9-]{0,63}$/.test(name)) {
    throw new UsageError(
      `${option} must be a device profile name such as desktop or mobile; got '${text}'.`,
    );
  }
  return name;
}

/**
 * Runs `work`, and when it takes longer than a second says so on stderr: one line redrawn with the
 * elapsed time on a terminal, one line once otherwise (docs/cli.md#progress).
 */
export async function withProgress<T>(
  ctx: CliContext,
  label: string,
  work: Promise<T>,
): Promise<T> {
  const started = ctx.now();
  const state = { shown: false };
  const show = () => {
    const seconds = Math.round((ctx.now() - started) / 1000);
    if (ctx.stderrIsTty) {
      ctx.stderr.write(`\r\u001b[2K${label}… ${String(seconds)} s`);
    } else if (!state.shown) {
      ctx.stderr.write(`${label}…\n`);
    }
    state.shown = true;
  };
  const timers: { first?: NodeJS.Timeout; ticker?: NodeJS.Timeout } = {};
  timers.first = setTimeout(() => {
    show();
    if (ctx.stderrIsTty) timers.ticker = setInterval(show, 1000);
  }, 1000);
  try {
    return await work;
  } finally {
    clearTimeout(timers.first);
    clearInterval(timers.ticker);
    if (state.shown && ctx.stderrIsTty) ctx.stderr.write('\r\u001b[2K');
  }
}

/** The file extension of a content type the service produces. */
export function extensionOf(contentType: string): string {
  if (contentType.startsWith('image/jpeg')) return 'jpg';
  if (contentType.startsWith('application/pdf')) return 'pdf';
  if (contentType.startsWith('video/mp4')) return 'mp4';
  return 'png';
}
