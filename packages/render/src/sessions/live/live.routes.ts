import type { FastifyInstance } from 'fastify';
import { tokenSession } from '../discovery.routes.js';
import type { SessionManager } from '../session-manager.js';
import { livePage } from './live-page.js';

// GET /v1/sessions/<id>/live (docs/sessions.md#live-view): a page that shows the session's active
// tab and, unless `?interactive=0`, lets a person drive it. It takes the session's own token or
// the service token, in a header or `?token=`, so the link can be shared; the page itself holds
// the session's token and goes through the door like any client.

// The page runs only its own inline script and style, shows frames from data: URLs, and talks to
// this service alone.
const CSP =
  "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; " +
  "connect-src 'self' ws: wss:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export function liveRoutes(app: FastifyInstance, manager: SessionManager): void {
  app.get(
    '/v1/sessions/:id/live',
    { config: { public: true, sessionToken: true } },
    (request, reply) => {
      const session = tokenSession(request, manager);
      const query = request.query as { interactive?: unknown };
      const page = livePage(session.id, session.doorToken(), query.interactive !== '0');
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
