import type { FastifyRequest } from 'fastify';
import type { RouteDeps } from './app.js';
import { formsErrors } from '../errors.js';

const admin = Symbol('admin hook');

/**
 * The onRequest hook of every admin route: the token, then the organisation it names, in the
 * order of docs/forms.md#authentication (AuthService).
 */
export function adminAuth(deps: Pick<RouteDeps, 'auth'>) {
  const hook = async (request: FastifyRequest): Promise<void> => {
    const principal = await deps.auth.authenticate(request.headers.authorization);
    request.principal = principal;
    const org = (request.params as { org?: string }).org;
    if (org === undefined) return;
    await deps.auth.authorizeOrg(principal, org);
  };
  return Object.assign(hook, { [admin]: true });
}

/**
 * The admin hook, or instead a signed link's check when the request carries one
 * (docs/forms.md#file-uploads): `signed` answers whether the link is good.
 */
export function adminAuthOrSignedLink(
  deps: Pick<RouteDeps, 'auth'>,
  signed: (request: FastifyRequest, expires: string, signature: string) => Promise<boolean>,
) {
  const viaToken = adminAuth(deps);
  const hook = async (request: FastifyRequest): Promise<void> => {
    const { expires, signature } = request.query as { expires?: string; signature?: string };
    if (expires === undefined && signature === undefined) {
      await viaToken(request);
      return;
    }
    if (!(await signed(request, expires ?? '', signature ?? ''))) {
      throw formsErrors.error('FILE_LINK_INVALID');
    }
  };
  return Object.assign(hook, { [admin]: true });
}

/** Whether a route hook is the admin hook: the OpenAPI document marks those routes' token. */
export function isAdminHook(hook: unknown): boolean {
  return typeof hook === 'function' && admin in hook;
}
