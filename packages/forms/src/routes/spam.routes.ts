import { adminErrors, errorAnswers } from '../wire/errors.js';
import { FormParams, NotSpam, SpamFeed, SpamFeedQuery, SubmissionParams } from '../wire/spam.js';
import { adminAuth } from './admin-auth.js';
import type { App, RouteDeps } from './app.js';

/** docs/forms.md#spam: the spam feed and "not spam". */
export function registerSpamRoutes(app: App, deps: RouteDeps): void {
  const { spam } = deps;
  const onRequest = adminAuth(deps);

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
