import { renderErrors } from '../errors.js';
import type { Readable } from 'node:stream';
import { Type } from 'typebox';
import {
  ArtifactQueryError,
  type ArtifactDescriptor,
  type ArtifactStore,
} from '../artifacts/artifact-store.js';
import { ArtifactList, ArtifactListQuery } from '../schemas/artifact.schema.js';
import type { App } from '../server-context.js';

/** `key:value` query values as a label filter; answers 400 naming one without a colon. */
function labelFilter(label: string | string[] | undefined): Record<string, string> | undefined {
  if (label === undefined) return undefined;
  const filter: Record<string, string> = {};
  for (const pair of Array.isArray(label) ? label : [label]) {
    const colon = pair.indexOf(':');
    if (colon <= 0) throw renderErrors.error('LABEL_INVALID', { pair: JSON.stringify(pair) });
    filter[pair.slice(0, colon)] = pair.slice(colon + 1);
  }
  return filter;
}

/**
 * GET /v1/artifacts/<id> (docs/render.md#get-v1artifactsid): the stored bytes, streamed, or 404.
 * GET /v1/artifacts: the live artifacts, newest first, by session and labels, a page at a time
 * (docs/render.md#get-v1artifacts), so a closed session's recording can always be found.
 */
export function artifactsRoutes(app: App, store: ArtifactStore): void {
  app.get(
    '/v1/artifacts',
    {
      config: { access: 'service' },
      schema: { querystring: ArtifactListQuery, response: { 200: ArtifactList } },
    },
    async (request) => {
      const { session, label, cursor } = request.query;
      const limit = Number(request.query.limit ?? 50);
      if (!(limit >= 1 && limit <= 500)) throw renderErrors.error('LIMIT_INVALID');
      try {
        return await store.list({ session, labels: labelFilter(label), limit, cursor });
      } catch (err) {
        if (err instanceof ArtifactQueryError) {
          throw renderErrors.error('ARTIFACT_QUERY_INVALID', { problem: err.message });
        }
        throw err;
      }
    },
  );

  app.get(
    '/v1/artifacts/:id',
    {
      config: { access: 'service' },
      schema: {
        params: Type.Object({ id: Type.String() }),
        response: {
          200: {
            description: 'The stored bytes, as the content type they were stored with.',
            // Bytes, streamed: the reply sends a Readable, not a JSON string.
            content: { '*/*': { schema: Type.Unsafe<Readable>(Type.String()) } },
          },
        },
      },
    },
    async (request, reply) => {
      const found = await store.get(request.params.id);
      if (!found) throw renderErrors.error('ARTIFACT_NOT_FOUND');
      const { descriptor } = found;
      return (
        reply
          .header('content-type', descriptor.contentType)
          .header('content-length', descriptor.bytes)
          .header('cache-control', 'private, max-age=3600')
          // docs/render.md#get-v1artifactsid: bytes a page chose are never run as this service's
          // page: no sniffing, and a sandbox without scripts or requests even if one were HTML.
          .header('x-content-type-options', 'nosniff')
          .header('content-security-policy', "sandbox; default-src 'none'")
          .header('content-disposition', disposition(descriptor))
          .send(found.stream)
      );
    },
  );
}

/**
 * `attachment` for a file a session's page downloaded (it carries the page's `filename`), named
 * as the page named it; `inline` for what the service made itself (renders, screenshots, video).
 */
function disposition(descriptor: ArtifactDescriptor): string {
  const filename = descriptor.labels['filename'];
  if (descriptor.session === undefined || filename === undefined) return 'inline';
  // RFC 6266: an ASCII fallback, and the exact name in RFC 8187's encoding.
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}
