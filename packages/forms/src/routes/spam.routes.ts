import type { FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from '@havn/shared';
import type { GateForm } from '../services/spam.service.js';
import { adminErrors, errorAnswers, NoContent } from '../wire/errors.js';
import {
  Challenge,
  FormParams,
  NotSpam,
  SpamFeed,
  SpamFeedQuery,
  SubmissionParams,
} from '../wire/spam.js';
import { adminAuth } from './admin-auth.js';
import type { App, RouteDeps } from './app.js';

const challengeUrl = '/api/orgs/:org/forms/:form/challenge';

/**
 * docs/forms.md#spam: the public proof-of-work challenge of a "pow" form (behind the same origin
 * gate and rate limit as ingest), the spam feed and "not spam".
 */
export function registerSpamRoutes(app: App, deps: RouteDeps): void {
  const { spam } = deps;
  const onRequest = adminAuth(deps);

  /**
   * The public routes' origin gate (docs/forms.md#public-no-token-gated-by-the-forms-allowedorigins):
   * an origin off the list is a 403 without CORS headers; a GET without Origin (the hosted page,
   * same-origin) is served; an allowed origin is echoed with credentials, never `*`.
   */
  async function gate(request: FastifyRequest, reply: FastifyReply): Promise<GateForm> {
    const { org, form } = request.params as { org: string; form: string };
    const found = await spam.gateForm(org, form);
    if (!found) throw new HttpError(404, `form ${org}/${form} not found`);
    const origin = request.headers.origin;
    if (origin !== undefined) {
      if (!found.allowedOrigins.includes(origin)) {
        throw new HttpError(403, `origin ${origin} is not allowed for this form`);
      }
      void reply
        .header('access-control-allow-origin', origin)
        .header('access-control-allow-credentials', 'true')
        .header('access-control-expose-headers', 'Retry-After')
        .header('vary', 'Origin');
    }
    return found;
  }

  app.options(
    challengeUrl,
    {
      schema: {
        params: FormParams,
        response: { 204: NoContent, ...errorAnswers(400, 403, 404) },
      },
    },
    async (request, reply) => {
      if (request.headers.origin === undefined) {
        throw new HttpError(403, 'an Origin header is required');
      }
      await gate(request, reply);
      const requested = request.headers['access-control-request-headers'];
      void reply
        .header('access-control-allow-methods', 'GET, OPTIONS')
        .header('access-control-max-age', '600')
        .header('vary', 'Origin, Access-Control-Request-Headers');
      if (requested) void reply.header('access-control-allow-headers', requested);
      return reply.code(204).send(null);
    },
  );

  app.get(
    challengeUrl,
    {
      schema: {
        params: FormParams,
        response: { 200: Challenge, ...errorAnswers(400, 403, 404, 409, 429) },
      },
    },
    async (request, reply) => {
      const { org, form } = request.params;
      const found = await gate(request, reply);
      // Counted apart from the form's submissions, per client address, like ingest.
      const retryAfter = deps.limiter.take(`${request.ip} ${org}/${form} challenge`);
      if (retryAfter !== undefined) {
        void reply.header('retry-after', String(retryAfter));
        throw new HttpError(429, `too many challenges; retry in ${String(retryAfter)} s`);
      }
      void reply.header('cache-control', 'no-store');
      return spam.challenge(found, org);
    },
  );

  app.get(
    '/api/orgs/:org/forms/:form/spam',
    {
      onRequest,
      schema: {
        params: FormParams,
        querystring: SpamFeedQuery,
        response: { 200: SpamFeed, ...errorAnswers(...adminErrors) },
      },
    },
    async (request) => {
      const { org, form } = request.params;
      return { submissions: await spam.feed(org, form, request.query) };
    },
  );

  app.post(
    '/api/orgs/:org/forms/:form/submissions/:id/not-spam',
    {
      onRequest,
      schema: {
        params: SubmissionParams,
        response: { 200: NotSpam, ...errorAnswers(...adminErrors) },
      },
    },
    async (request) => {
      const { org, form, id } = request.params;
      const queued = await spam.notSpam(org, form, id);
      return { id, spam: false as const, queued };
    },
  );
}
