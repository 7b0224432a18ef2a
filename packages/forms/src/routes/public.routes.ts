import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@fastify/type-provider-typebox';
import { HttpError } from '@havn/shared';
import { multipartFields } from '../services/ingest.service.js';
import type { GateForm } from '../store/forms.store.js';
import { baseUrl, type App, type RouteDeps } from './app.js';

const FormParams = Type.Object({ org: Type.String(), form: Type.String() });
type FormParamsT = { org: string; form: string };

const ingestLimit = 256 * 1024; // spec 2 §8

/**
 * The two public endpoints (spec 2 §4.1), gated by the form's allowedOrigins with the
 * exact-origin, credentialed CORS rule (0-decisions §2): never `*`, 403 without CORS headers for an
 * origin not on the list, 403 for a POST without Origin; a GET without Origin is a same-origin
 * preview and is served.
 */
export function registerPublicRoutes(app: App, deps: RouteDeps): void {
  const { store, config } = deps;

  async function gate(request: FastifyRequest, reply: FastifyReply, method: 'GET' | 'POST') {
    const { org, form } = request.params as FormParamsT;
    gateWith(await store.forms.getCached(org, form), request, reply, method);
  }

  /** The origin gate for the form found (or not) at the request's org/form. */
  function gateWith(
    found: GateForm | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
    method: 'GET' | 'POST',
  ): void {
    const { org, form } = request.params as FormParamsT;
    if (!found) throw new HttpError(404, `form ${org}/${form} not found`);
    const origin = request.headers.origin;
    if (origin === undefined) {
      if (method === 'POST') throw new HttpError(403, 'an Origin header is required');
    } else if (!found.allowedOrigins.includes(origin)) {
      throw new HttpError(403, `origin ${origin} is not allowed for this form`);
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
        throw new HttpError(403, 'an Origin header is required');
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

  app.options(definitionUrl, { schema: { params: FormParams } }, preflight('GET'));
  app.options(submissionsUrl, { schema: { params: FormParams } }, preflight('POST'));

  app.get(
    definitionUrl,
    {
      schema: { params: FormParams },
      onRequest: async (request, reply) => gate(request, reply, 'GET'),
    },
    async (request) => {
      const { org, form } = request.params;
      const stored = await store.forms.definition(org, form);
      if (!stored) throw new HttpError(404, `form ${org}/${form} has no definition yet`);
      // spec 2 §2.4 / §4.1: the submit block is injected, built from PUBLIC_BASE_URL or the host.
      return {
        ...stored.definition,
        submit: {
          submitUrl: `${baseUrl(config, request)}/api/orgs/${encodeURIComponent(org)}/forms/${encodeURIComponent(form)}/submissions`,
          submitMethod: 'POST',
        },
      };
    },
  );

  app.post(
    submissionsUrl,
    {
      bodyLimit: ingestLimit,
      config: { unparsedJson: true },
      schema: { params: FormParams },
      // A callback hook, not an async one: with the form in the cache (the usual case) the gate
      // and the rate limit run without a promise per request.
      onRequest: (request, reply, done) => {
        const { org, form } = request.params;
        const limit = () => {
          const retryAfter = deps.limiter.take(`${request.ip} ${org}/${form}`);
          if (retryAfter !== undefined) {
            void reply.header('retry-after', String(retryAfter));
            throw new HttpError(429, `too many submissions; retry in ${String(retryAfter)} s`);
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
        const hit = store.forms.peekCached(org, form);
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
      // Answers are read against the definition (which answers may be arrays): none, none taken.
      if (form.definitionVersion === null) throw new HttpError(409, 'form has no definition yet');
      const { org } = request.params;
      const header = (name: string) => {
        const v = request.headers[name];
        return typeof v === 'string' ? v : null;
      };
      const contentType = request.headers['content-type'] ?? '';
      const multipart = contentType.startsWith('multipart/form-data');
      const urlencoded = multipart || contentType.startsWith('application/x-www-form-urlencoded');
      const raw = request.rawBody ?? Buffer.alloc(0);
      const formFields = multipart ? await multipartFields(raw, contentType) : undefined;
      // Parsed, checked and stored on the writer thread; answers only after the group commit that
      // holds this row (and its outbox rows) is synced. A bad body rejects with its 400.
      const id = await store.writer.ingest({
        org,
        form,
        pushSubscriptions: store.push.peekOfOrg(org) ?? (await store.push.ofOrgCached(org)),
        raw,
        origin: header('origin'),
        referer: header('referer'),
        userAgent: header('user-agent'),
        ip: request.ip,
        now: deps.now(),
        ...(urlencoded ? { urlencoded: true } : {}),
        ...(formFields !== undefined ? { formFields } : {}),
      });
      if (urlencoded) {
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
