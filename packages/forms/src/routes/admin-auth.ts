import type { FastifyRequest } from 'fastify';
import { HttpError } from '@havn/shared';
import { authenticate, authorizeOrg } from '../services/auth.service.js';
import type { RouteDeps } from './app.js';

/**
 * The onRequest hook of every admin route: 401 before anything else is looked at, then 403 for an
 * organisation token outside its organisation, then 404 for an unknown organisation (so a token
 * of another organisation learns nothing about which slugs exist).
 */
export function adminAuth(deps: RouteDeps) {
  return async (request: FastifyRequest): Promise<void> => {
    const principal = await authenticate(
      request.headers.authorization,
      deps.config.adminToken,
      deps.store.orgs,
    );
    request.principal = principal;
    const org = (request.params as { org?: string }).org;
    if (org === undefined) return;
    authorizeOrg(principal, org);
    if (!(await deps.store.orgs.get(org))) {
      throw new HttpError(404, `organisation ${org} not found`);
    }
  };
}
