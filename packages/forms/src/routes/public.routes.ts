import type { FastifyReply, FastifyRequest } from 'fastify';
import { bodyKind, type GateForm } from '../services/public-forms.service.js';
import { errorAnswers, NoContent, SeeOther } from '../wire/errors.js';
import { PublicDefinition, PublicFormParams as FormParams, Received } from '../wire/public.js';
import { Challenge } from '../wire/spam.js';
import { baseUrl, type App, type RouteDeps } from './app.js';
import { formsErrors } from '../errors.js';

type FormParamsT = { org: string; form: string };
const preflightSchema = {
  params: FormParams,
  response: { 204: NoContent, ...errorAnswers(400, 403, 404) },
};

/** docs/forms.md#public-no-token-gated-by-the-forms-allowedorigins; files come on top. */
export const INGEST_LIMIT = 256 * 1024;

/**
 * The public endpoints (the definition, ingest and a pow form's challenge), gated by the form's allowedOrigins with the exact-origin, credentialed
 * CORS rule (docs/forms.md#public-no-token-gated-by-the-forms-allowedorigins): never `*`, 403
 * without CORS headers for an origin not on the list, 403 for a POST without Origin; a GET without
 * Origin is a same-origin preview and is served.
 */
export function registerPublicRoutes(app: App, deps: RouteDeps): void {
  const { publicForms, config } = deps;

  async function gate(request: FastifyRequest, reply: FastifyReply, method: 'GET' | 'POST') {
    const { org, form } = request.params as FormParamsT;
    gateWith(await publicForms.gateForm(org, form), request, reply, method);
  }

  /** The origin gate for the form found (or not) at the request's org/form. */
  function gateWith(
    found: GateForm | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
    method: 'GET' | 'POST',
  ): void {
    const { org, form } = request.params as FormParamsT;
    if (!found) throw formsErrors.error('FORM_NOT_FOUND', { org, form });
    const origin = request.headers.origin;
    if (origin === undefined) {
      if (method === 'POST') throw formsErrors.error('ORIGIN_REQUIRED');
    } else if (!found.allowedOrigins.includes(origin)) {
      throw formsErrors.error('ORIGIN_NOT_ALLOWED', { origin });
    } else {
      void reply
        .header('access-control-allow-origin', origin)
        .header('access-control-allow-credentials', 'true')
        .header('access-control-expose-headers', 'Retry-After')
        .header('vary', 'Origin');
    }
    request.publicForm = found;
  }

  function preflight(method: 'GET' | 'POST') {
    return async (request: FastifyRequest, reply: FastifyReply) => {
      if (request.headers.origin === undefined) {
        throw formsErrors.error('ORIGIN_REQUIRED');
      }
      await gate(request, reply, method);
      const requested = request.headers['access-control-request-headers'];
      void reply
        .header('access-control-allow-methods', `${method}, OPTIONS`)
        .header('access-control-max-age', '600')
        .header('vary', 'Origin, Access-Control-Request-Headers');
      if (requested) void reply.header('access-control-allow-headers', requested);
      return reply.code(204).send();
    };
  }

  const definitionUrl = '/api/orgs/:org/forms/:form/definition';
  const submissionsUrl = '/api/orgs/:org/forms/:form/submissions';
  const challengeUrl = '/api/orgs/:org/forms/:form/challenge';

  app.options(definitionUrl, { schema: preflightSchema }, preflight('GET'));
  app.options(submissionsUrl, { schema: preflightSchema }, preflight('POST'));
  app.options(challengeUrl, { schema: preflightSchema }, preflight('GET'));

  app.get(
    challengeUrl,
    {
      schema: {
        params: FormParams,
        response: { 200: Challenge, ...errorAnswers(403, 404, 409, 429) },
      },
      onRequest: async (request, reply) => gate(request, reply, 'GET'),
    },
    async (request, reply) => {
      const { org, form } = request.params;
      const found = request.publicForm;
      if (!found) throw new Error('challenge without the origin gate');
      // docs/forms.md#proof-of-work: counted apart from the form's submissions, per client address.
      const retryAfter = deps.limiter.take(`${request.ip} ${org}/${form} challenge`);
      if (retryAfter !== undefined) {
        void reply.header('retry-after', String(retryAfter));
        throw formsErrors.error('CHALLENGES_LIMITED', { seconds: retryAfter });
      }
      void reply.header('cache-control', 'no-store');
      return deps.spam.challenge(found, org);
    },
  );

  app.get(
    definitionUrl,
    {
      schema: {
        params: FormParams,
        response: { 200: PublicDefinition, ...errorAnswers(403, 404) },
      },
      onRequest: async (request, reply) => gate(request, reply, 'GET'),
    },
    async (request) => {
      const { org, form } = request.params;
      const definition = await publicForms.definition(org, form);
      // The submit block is injected, built from PUBLIC_BASE_URL or the request's host.
      const formUrl = `${baseUrl(config, request)}/api/orgs/${encodeURIComponent(org)}/forms/${encodeURIComponent(form)}`;
      return {
        ...definition,
        submit: {
          submitUrl: `${formUrl}/submissions`,
          submitMethod: 'POST' as const,
          // docs/forms.md#spam: the runtime solves a challenge from here while the person types.
          ...(request.publicForm?.spamProtection === 'pow'
            ? { spamProtection: 'pow' as const, challengeUrl: `${formUrl}/challenge` }
            : {}),
        },
      };
    },
  );

  app.post(
    submissionsUrl,
    {
      bodyLimit: INGEST_LIMIT,
      config: { unparsedJson: true },
      // The body is read from its bytes (the document shows it: see the OpenAPI transform).
      schema: {
        params: FormParams,
        response: {
          200: Received,
          303: SeeOther,
          ...errorAnswers(400, 403, 404, 409, 413, 415, 429),
        },
      },
      // A callback hook, not an async one: with the form in the cache (the usual case) the gate
      // and the rate limit run without a promise per request.
      onRequest: (request, reply, done) => {
        const { org, form } = request.params;
        const limit = () => {
          const retryAfter = deps.limiter.take(`${request.ip} ${org}/${form}`);
          if (retryAfter !== undefined) {
            void reply.header('retry-after', String(retryAfter));
            throw formsErrors.error('SUBMISSIONS_LIMITED', { seconds: retryAfter });
          }
        };
        const finish = (check: () => void) => {
          try {
            check();
          } catch (err) {
            done(err as Error);
            return;
          }
          done();
        };
        const hit = publicForms.peekGateForm(org, form);
        if (hit) {
          finish(() => {
            gateWith(hit.value, request, reply, 'POST');
            limit();
          });
          return;
        }
        gate(request, reply, 'POST').then(() => {
          finish(limit);
        }, done);
      },
    },
    async (request, reply) => {
      const form = request.publicForm;
      if (!form) throw new Error('ingest without the origin gate');
      const { org } = request.params;
      const header = (name: string) => {
        const v = request.headers[name];
        return typeof v === 'string' ? v : null;
      };
      const contentType = request.headers['content-type'] ?? '';
      // Answers only after the group commit that holds this row (and its outbox rows) is synced.
      const id = await publicForms.submit({
        org,
        form,
        raw: request.rawBody ?? Buffer.alloc(0),
        stream: bodyKind(contentType) === 'multipart' ? request.raw : undefined,
        contentType,
        origin: header('origin'),
        referer: header('referer'),
        userAgent: header('user-agent'),
        ip: request.ip,
        now: deps.now(),
      });
      // A script sending a multipart body (the runtime's files) asks for JSON with Accept.
      const wantsJson = request.headers.accept?.includes('application/json') === true;
      if (bodyKind(contentType) !== 'json' && !wantsJson) {
        // docs/forms.md#plain-html-posts: the browser follows a 303 with a GET.
        const thanks = `${baseUrl(config, request)}/f/${encodeURIComponent(org)}/${encodeURIComponent(form.id)}/thanks`;
        return reply
          .code(303)
          .header('location', form.redirectUrl ?? thanks)
          .send();
      }
      // The answer's bytes as JSON.stringify({ status, id }) makes them, without a serializer.
      void reply.header('content-type', 'application/json; charset=utf-8');
      return `{"status":"received","id":${JSON.stringify(id)}}`;
    },
  );
}
