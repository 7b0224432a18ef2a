import { HttpError } from '@havn/shared';
import { ofInput, renderErrors } from '../errors.js';
import type { ArtifactStore } from '../artifacts/artifact-store.js';
import { finishDocument, type PdfFinish } from '../pdf/pdf-finish.js';
import { MergeInputError, mergePdfs, type MergeOptions } from '../pdf/pdf-merge.js';
import type { QpdfTool } from '../pdf/pdf-protect.js';
import type { Profile } from '../profiles.js';
import type { RenderMetrics } from './render-metrics.js';
import type { PreparedOptions } from './render-options.js';
import type { RenderService } from './render-service.js';

// POST /v1/pdf/merge (docs/render.md#post-v1pdfmerge): every rendered input takes its own queue
// slot (as the profiles of a batch do) and the stored ones are read from the artifact store; the
// first failure stops the others and answers naming its index. The parts are merged by pdf-lib,
// then given the merge's metadata and protection.

/** Largest stored PDF a merge reads (bytes); a bigger one answers 400 naming its input. */
export const MAX_MERGE_ARTIFACT_BYTES = 100 * 1024 * 1024;

export type MergeSource =
  | { artifact: string; title?: string | undefined }
  | { options: PreparedOptions; profile: Profile; title?: string | undefined };

export interface Merged {
  buffer: Buffer;
  pages: number;
  ms: number;
}

/**
 * An error of input `index`: a refusal (400) or a full service (503) keeps its status and code, a
 * render's other failures answer 502 RENDER_MERGE_INPUT_FAILED, a client gone stays itself.
 */
function inputError(index: number, err: unknown): Error {
  if (!(err instanceof HttpError)) return err instanceof Error ? err : new Error(String(err));
  if (err.status === 499) return err;
  if (err.status === 400 || err.status === 503) return ofInput(index, err);
  return renderErrors.error('MERGE_INPUT_FAILED', { index, reason: err.message });
}

export class PdfMergeService {
  readonly #render: RenderService;
  readonly #store: ArtifactStore;
  readonly #qpdf: QpdfTool;
  readonly #metrics: RenderMetrics;

  constructor(deps: {
    render: RenderService;
    store: ArtifactStore;
    qpdf: QpdfTool;
    metrics: RenderMetrics;
  }) {
    this.#render = deps.render;
    this.#store = deps.store;
    this.#qpdf = deps.qpdf;
    this.#metrics = deps.metrics;
  }

  async merge(
    sources: readonly MergeSource[],
    finish: PdfFinish,
    options: MergeOptions,
    clientSignal: AbortSignal,
  ): Promise<Merged> {
    const started = performance.now();
    const stop = new AbortController();
    const signal = AbortSignal.any([clientSignal, stop.signal]);
    const parts = await Promise.all(
      sources.map(async (source, index) => {
        try {
          if ('artifact' in source) {
            return { pdf: await this.#readArtifact(source.artifact), title: source.title };
          }
          const rendered = await this.#render.render(source.options, source.profile, signal);
          return { pdf: rendered.buffer, title: source.title };
        } catch (err) {
          // The first failure answers; the other inputs stop and free their slots.
          const mapped = clientSignal.aborted ? err : inputError(index, err);
          stop.abort(mapped);
          throw mapped;
        }
      }),
    );
    let doc;
    try {
      doc = await mergePdfs(parts, options);
    } catch (err) {
      if (err instanceof MergeInputError) {
        throw renderErrors.error('MERGE_INPUT_INVALID', { index: err.index, problem: err.message });
      }
      throw err;
    }
    const buffer = await finishDocument(doc, finish, this.#qpdf);
    const ms = Math.round(performance.now() - started);
    this.#metrics.duration.observe({ format: 'merge' }, ms / 1000);
    return { buffer, pages: doc.getPageCount(), ms };
  }

  async #readArtifact(id: string): Promise<Buffer> {
    const found = await this.#store.get(id);
    if (!found) throw renderErrors.error('MERGE_ARTIFACT_NOT_FOUND', { id: JSON.stringify(id) });
    const { descriptor, stream } = found;
    if (descriptor.contentType !== 'application/pdf') {
      stream.destroy();
      throw renderErrors.error('MERGE_ARTIFACT_NOT_PDF', {
        id: JSON.stringify(id),
        type: descriptor.contentType,
      });
    }
    if (descriptor.bytes > MAX_MERGE_ARTIFACT_BYTES) {
      stream.destroy();
      throw renderErrors.error('MERGE_ARTIFACT_TOO_LARGE', {
        id: JSON.stringify(id),
        bytes: descriptor.bytes,
        max: MAX_MERGE_ARTIFACT_BYTES,
      });
    }
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }
}
