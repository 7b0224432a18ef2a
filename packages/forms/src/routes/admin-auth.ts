import type { FastifyRequest } from 'fastify';
import type { RouteDeps } from './app.js';

/**
 * The onRequest hook of every admin route: the token, then the organisation it names, in the
 * order of docs/forms.md#authentication (AuthService).
 */
export function adminAuth(deps: Pick<RouteDeps, 'auth'>) {
  return async (request: FastifyRequest): Promise<void> => {
    const principal = await deps.auth.authenticate(request.headers.authorization);
    request.principal = principal;
    const org = (request.params as { org?: string }).org;
    if (org === undefined) return;
    await deps.auth.authorizeOrg(principal, org);
  };
}
