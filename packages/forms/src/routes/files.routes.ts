import { Type } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { adminErrors, errorAnswers } from '../wire/errors.js';
import { FileParams, FileQuery } from '../wire/submissions.js';
import { attachmentDisposition } from '../services/uploads/file-names.js';
import { adminAuthOrSignedLink } from './admin-auth.js';
import type { App, RouteDeps } from './app.js';

/**
 * A submission's file (docs/forms.md#file-uploads), with the token or a webhook's signed link.
 * Always an attachment with nosniff, so no browser renders an uploaded page or script on this
 * origin, whatever its type.
 */
export function registerFileRoutes(app: App, deps: RouteDeps): void {
  const onRequest = adminAuthOrSignedLink(deps, (request, expires, signature) => {
    const { org, form, id, fileId } = request.params as Record<string, string>;
    return deps.fileLinks.verify(
      { org: org ?? '', form: form ?? '', submission: id ?? '', file: fileId ?? '' },
      expires,
      signature,
    );
  });
  app.get(
    '/api/orgs/:org/forms/:form/submissions/:id/files/:fileId',
    {
      onRequest,
      schema: {
        params: FileParams,
        querystring: FileQuery,
        response: {
          200: {
            description: "The file's bytes as an attachment, in the type read from them",
            content: { '*/*': { schema: Type.String({ format: 'binary' }) } },
          },
          ...errorAnswers(...adminErrors),
        },
      },
    },
    async (request, reply) => {
      const { org, form, id, fileId } = request.params;
      const { file, stream, bytes } = await deps.submissions.file(org, form, id, fileId);
      return (reply as FastifyReply)
        .header('content-type', file.type)
        .header('content-length', String(bytes))
        .header('content-disposition', attachmentDisposition(file.name))
        .header('x-content-type-options', 'nosniff')
        .header('cache-control', 'private, no-store')
        .send(stream);
    },
  );
}
