import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { ErrorBody } from '../../schemas/render.schema.js';
import { drives } from '../../auth.js';
import { calledSession } from '../session-urls.js';
import { livePage } from './live-page.js';

// GET /v1/sessions/<id>/live (docs/sessions.md#live-view): a page that shows the session's active
// tab and, with the session's own token or the service token, lets a person drive it. With the
// session's view token, or `?interactive=0`, the page only watches and holds only the view token,
// which the door lets do nothing but list targets and screencast: a watch link cannot be turned
// into control by reading the page. The page goes through the door like any client.

// The page runs only its own inline script and style, shows frames from data: URLs, and talks to
// this service alone: `connect-src 'self'` covers the door's ws: and wss: on the page's own host.
const CSP =
  "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; " +
  "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export function liveRoutes(app: FastifyInstance): void {
  app.get(
    '/v1/sessions/:id/live',
    {
      // The service token, the session's own (drives) or its view token (only watches).
      config: { access: 'view', ownPagesOnly: true },
      schema: {
        params: Type.Object({ id: Type.String() }),
        querystring: Type.Object({
          interactive: Type.Optional(
            Type.String({
              description: '`0`: a page that only watches, even with a token that drives.',
            }),
          ),
        }),
        response: {
          200: {
            description: 'The live view page.',
            content: { 'text/html': { schema: Type.String() } },
          },
          403: ErrorBody,
        },
      },
    },
    (request, reply) => {
      const session = calledSession(request);
      const query = request.query as { interactive?: unknown };
      const interactive = drives(request.caller) && query.interactive !== '0';
      const token = interactive ? session.doorToken() : session.watchToken();
      const page = livePage(session.id, token, interactive);
      return (
        reply
          .header('content-type', 'text/html; charset=utf-8')
          // The page carries a token: never cached, never sent on as a referrer.
          .header('cache-control', 'no-store')
          .header('referrer-policy', 'no-referrer')
          .header('content-security-policy', CSP)
          .send(page)
      );
    },
  );
}
