import { HttpError } from '@havn/shared';
import { ofInput, renderErrors } from '../errors.js';
import { MergeBody, MergeResult, type MergeInput } from '../schemas/pdf.schema.js';
import { PAGE_ERRORS } from '../schemas/render.schema.js';
import type { App } from '../server-context.js';
import type { MergeSource, PdfMergeService } from '../services/pdf-merge-service.js';
import {
  pdfParts,
  prepareOptions,
  renderProfile,
  type RenderLimits,
} from '../services/render-options.js';
import type { RenderService } from '../services/render-service.js';
import { clientSignal } from './client-signal.js';

// POST /v1/pdf/merge (docs/render.md#post-v1pdfmerge). Every input is validated, and every url
// checked against the private-network policy, before any is rendered; errors name the input.

function bad(problem: string): never {
  throw renderErrors.error('OPTIONS_INVALID', { problem });
}

/** Runs `step`, naming input `index` in a 400 it throws. */
async function forInput<T>(index: number, step: () => T | Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    if (err instanceof HttpError && err.status === 400) {
      throw ofInput(index, err);
    }
    throw err;
  }
}

export function pdfRoutes(
  app: App,
  render: RenderService,
  merger: PdfMergeService,
  limits: RenderLimits,
): void {
  async function source(
    input: MergeInput,
    index: number,
    shared: MergeBody['pdf'],
  ): Promise<MergeSource> {
    return forInput(index, async () => {
      const { artifact, title, profile: profileInput, pdf, ...page } = input;
      if (artifact !== undefined) {
        if (page.url !== undefined || page.html !== undefined) {
          bad('artifact is exclusive with url and html');
        }
        return { artifact, title };
      }
      if (pdf?.metadata !== undefined || pdf?.encrypt !== undefined) {
        bad('pdf.metadata and pdf.encrypt apply to the merged document; give them beside inputs');
      }
      // The merge's print options are every input's defaults; an input's own win field by field.
      const { metadata: _m, encrypt: _e, ...print } = shared ?? {};
      const options = prepareOptions({ ...page, format: 'pdf', pdf: { ...print, ...pdf } }, limits);
      const profile = renderProfile(profileInput, 'profile', options, limits);
      await render.checkTarget(options);
      return { options, profile, title };
    });
  }

  app.post(
    '/v1/pdf/merge',
    {
      config: { access: 'service' },
      schema: { body: MergeBody, response: { 200: MergeResult, ...PAGE_ERRORS } },
    },
    async (request, reply) => {
      const { inputs, pdf, labels = {} } = request.body;
      const finish = pdf === undefined ? {} : (pdfParts(pdf, 'pdf').pdfFinish ?? {});
      const sources: MergeSource[] = [];
      for (const [index, input] of inputs.entries()) {
        sources.push(await source(input, index, pdf));
      }
      const merged = await merger.merge(
        sources,
        finish,
        { tagged: pdf?.tagged },
        clientSignal(reply),
      );
      const common = {
        contentType: 'application/pdf' as const,
        bytes: merged.buffer.length,
        pages: merged.pages,
        ms: merged.ms,
      };
      if (request.body.return === 'base64') {
        return { ...common, base64: merged.buffer.toString('base64') };
      }
      const artifact = await render.store(
        { buffer: merged.buffer, contentType: 'application/pdf', ms: merged.ms },
        labels,
      );
      return { ...common, artifact };
    },
  );
}
