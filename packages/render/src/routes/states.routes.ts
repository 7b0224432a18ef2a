import { Type } from 'typebox';
import { StateList, StateParams } from '../schemas/state.schema.js';
import { ErrorBody } from '../schemas/render.schema.js';
import type { App } from '../server-context.js';
import type { BrowserStates } from '../services/browser-states.js';

/**
 * GET /v1/states and DELETE /v1/states/<name> (docs/sessions.md#log-in-once-render-many-times):
 * list and remove saved browser states, with the service token only. Saving is a session's
 * (POST /v1/sessions/<id>/state); no route answers a state's contents.
 */
export function statesRoutes(app: App, states: BrowserStates): void {
  app.get(
    '/v1/states',
    { config: { access: 'service' }, schema: { response: { 200: StateList } } },
    async () => ({ states: await states.list() }),
  );

  app.delete(
    '/v1/states/:name',
    {
      config: { access: 'service' },
      schema: {
        params: StateParams,
        response: {
          200: Type.Object({ name: Type.String(), deleted: Type.Literal(true) }),
          400: ErrorBody,
        },
      },
    },
    async (request) => {
      await states.remove(request.params.name);
      return { name: request.params.name, deleted: true as const };
    },
  );
}
