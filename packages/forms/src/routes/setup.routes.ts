import { SetupLimitedError } from '../services/setup.service.js';
import { adminErrors, bodyErrors, errorAnswers } from '../wire/errors.js';
import { SetupBody, SetupDone, SetupLink } from '../wire/setup.js';
import { adminAuth } from './admin-auth.js';
import { baseUrl, principalOf, type App, type RouteDeps } from './app.js';

/** First run and setup links (docs/forms.md#first-run-and-setup-links). */
export function registerSetupRoutes(app: App, deps: RouteDeps): void {
  // Public: the code is the credential. Its body is never logged (nothing here logs bodies).
  app.post(
    '/api/setup',
    {
      schema: {
        body: SetupBody,
        response: { 201: SetupDone, ...errorAnswers(400, 403, 404, 409, 429, ...bodyErrors) },
      },
    },
    async (request, reply) => {
      try {
        const done = await deps.setup.redeem(request.ip, request.body);
        return await reply.code(201).send(done);
      } catch (err) {
        if (err instanceof SetupLimitedError) {
          void reply.header('retry-after', String(err.retryAfter));
        }
        throw err;
      }
    },
  );

  app.post(
    '/api/setup-links',
    {
      onRequest: adminAuth(deps),
      schema: { response: { 201: SetupLink, ...errorAnswers(...adminErrors) } },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(await deps.setup.link(principalOf(request), baseUrl(deps.config, request))),
  );
}
