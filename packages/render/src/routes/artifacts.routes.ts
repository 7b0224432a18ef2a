import { HttpError } from '@havn/shared';
import { Type } from 'typebox';
import type { ArtifactStore } from '../artifacts/artifact-store.js';
import type { App } from '../server-context.js';

/** GET /v1/artifacts/<id> (spec 1 §4.12): the stored bytes, streamed, or 404. */
export function artifactsRoutes(app: App, store: ArtifactStore): void {
  app.get(
    '/v1/artifacts/:id',
    {
      schema: {
        params: Type.Object({ id: Type.String() }),
        produces: ['application/octet-stream'],
      },
    },
    async (request, reply) => {
      const found = await store.get(request.params.id);
      if (!found) throw new HttpError(404, 'no such artifact (it may have expired)');
      return reply
        .header('content-type', found.descriptor.contentType)
        .header('content-length', found.descriptor.bytes)
        .header('cache-control', 'private, max-age=3600')
        .send(found.stream);
    },
  );
}
