// `havn render shot` and `havn render pdf`: one POST /v1/render with `return: "base64"` (nothing
// is left in the service's store), the bytes written to -o (docs/cli.md#havn-render).
import type { CliContext } from '../../context.js';
import { CliError, UsageError } from '../../errors.js';
import { refuseBinaryOnTerminal, toStdout, writeOutput } from '../../output/output-file.js';
import { isRecord } from '../../upstream/coerce.js';
import { wholeNumber } from '../whole-number.js';
import {
  deviceName,
  pageInput,
  renderClient,
  withProgress,
  type RenderTargetOptions,
} from './render-api.js';

export interface ShotOptions extends RenderTargetOptions {
  readonly output: string;
  readonly device?: string;
  readonly fullPage?: boolean;
  readonly selector?: string;
  readonly waitFor?: string;
  readonly baseUrl?: string;
  readonly format?: string;
  readonly quality?: string;
}

export interface PdfOptions extends RenderTargetOptions {
  readonly output: string;
  readonly device?: string;
  readonly footer?: string;
  readonly landscape?: boolean;
  readonly outline?: boolean;
  readonly waitFor?: string;
  readonly baseUrl?: string;
}

export async function shot(ctx: CliContext, input: string, o: ShotOptions): Promise<void> {
  const format = imageFormat(o.format, o.output);
  if (o.fullPage === true && o.selector !== undefined) {
    throw new UsageError(
      '--full-page and --selector do not go together: a selector captures one element.',
    );
  }
  if (o.quality !== undefined && format !== 'jpeg') {
    throw new UsageError('--quality applies only to jpeg.');
  }
  const quality = o.quality === undefined ? undefined : wholeNumber(o.quality, '--quality', 1, 100);
  await renderOne(ctx, input, o, format === 'jpeg' ? 'a JPEG' : 'a PNG', {
    format,
    ...(quality === undefined ? {} : { quality }),
    ...(o.fullPage === true ? { fullPage: true } : {}),
    ...(o.selector === undefined ? {} : { selector: o.selector }),
  });
}

export async function pdf(ctx: CliContext, input: string, o: PdfOptions): Promise<void> {
  if (o.footer !== undefined && o.footer !== 'page-numbers') {
    throw new UsageError(`--footer must be page-numbers; got '${o.footer}'.`);
  }
  const options = {
    // Without templates the footer reads "Page N of M" (docs/render.md#pdf-options).
    ...(o.footer === 'page-numbers' ? { displayHeaderFooter: true } : {}),
    ...(o.landscape === true ? { landscape: true } : {}),
    ...(o.outline === true ? { outline: true } : {}),
  };
  await renderOne(ctx, input, o, 'a PDF', {
    format: 'pdf',
    ...(Object.keys(options).length === 0 ? {} : { pdf: options }),
  });
}

async function renderOne(
  ctx: CliContext,
  input: string,
  o: RenderTargetOptions & { output: string; device?: string; waitFor?: string; baseUrl?: string },
  what: string,
  fields: Record<string, unknown>,
): Promise<void> {
  refuseBinaryOnTerminal(ctx, o.output, what);
  const device = o.device === undefined ? undefined : deviceName(o.device);
  const page = await pageInput(input, o.baseUrl);
  const client = await renderClient(ctx, o);
  const answer = await withProgress(
    ctx,
    `Rendering ${input}`,
    client.json('POST', '/v1/render', {
      ...page,
      ...fields,
      ...(device === undefined ? {} : { profile: device }),
      ...(o.waitFor === undefined ? {} : { waitForSelector: o.waitFor }),
      return: 'base64',
    }),
  );
  if (!isRecord(answer) || typeof answer.base64 !== 'string') {
    throw new CliError('The render service answered without the rendered bytes.');
  }
  const bytes = Buffer.from(answer.base64, 'base64');
  await writeOutput(ctx, o.output, bytes);
  if (!toStdout(o.output)) {
    ctx.stderr.write(
      `Wrote ${o.output} (${String(bytes.length)} bytes, ${String(answer.profile)}, ${String(answer.ms)} ms).\n`,
    );
  }
}

/** --format, else the extension of -o (.jpg, .jpeg), else png. */
function imageFormat(format: string | undefined, output: string): 'png' | 'jpeg' {
  if (format === undefined) return /\.jpe?g$/i.test(output) ? 'jpeg' : 'png';
  const f = format.trim().toLowerCase();
  if (f === 'png' || f === 'jpeg') return f;
  if (f === 'jpg') return 'jpeg';
  throw new UsageError(`--format must be png or jpeg; got '${format}'.`);
}
