import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { bearerToken, queryToken, tokensEqual } from '@havn/shared';
import { renderErrors } from './errors.js';
import { originRefusal, type PublicHosts } from './public-hosts.js';

// docs/architecture.md#who-may-call-render: the one place render decides who may call. Every route
// declares what it needs (`config: { access }`); one root hook reads the request's token, judges
// it against that need and hands the handler its caller; the CDP door and cluster forwarding,
// which see a bare IncomingMessage, ask the same Authenticator. docs/render.md#authentication
// says what a client sends: the service token as `Authorization: Bearer <token>` or `?token=`,
// compared in constant time; ALLOW_ANONYMOUS=1 lets every request act as the service.

/**
 * What a route needs: nothing (`public`), the service token (`service`), the service token or the
 * session's own token (`session`), or those and the session's view token too (`view`, which only
 * watches). The session is the one in the route's `:id`; on a path without one, the session
 * whose own token the request presents.
 */
export type Access = 'public' | 'service' | 'session' | 'view';

const ACCESSES: readonly string[] = ['public', 'service', 'session', 'view'] satisfies Access[];
const isAccess = (value: unknown): value is Access =>
  typeof value === 'string' && ACCESSES.includes(value);

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may call the route; every route declares it (docs/architecture.md#who-may-call-render). */
    access?: Access;
    /**
     * Another site's page may not fetch the route at all: refused 403 before its token is read, so
     * that it learns nothing of the token either (docs/render.md#hosts-and-origins).
     */
    ownPagesOnly?: true;
  }
  interface FastifyRequest {
    /** Who the request is, as the authentication hook found it before any handler ran. */
    caller: Caller;
  }
  interface FastifyInstance {
    /** Every route with the access it declared, in the order they registered. */
    readonly declaredRoutes: readonly DeclaredRoute[];
  }
}

export interface AuthSettings {
  readonly apiToken: string | undefined;
  readonly allowAnonymous: boolean;
}

/** A request as the authenticator reads it: a Fastify request's raw message or a bare upgrade. */
export interface TokenSource {
  headers: IncomingHttpHeaders;
  url?: string | undefined;
}

/** A session as the authenticator sees it: which of its own tokens a token is. */
export interface TokenHolder {
  readonly id: string;
  /** `own` for the session's own token, `view` for its view token; neither once it closes. */
  tokenRole(token: string): 'own' | 'view' | undefined;
}

/** Where 'session' and 'view' routes find their session (the sessions extension provides it). */
export interface SessionLookup {
  /** The live session `id` (never a closing one), here or on another instance. */
  byId(id: string): Promise<TokenHolder | undefined>;
  /** The live session whose own token `token` is (a view token names none). */
  byOwnToken(token: string): Promise<TokenHolder | undefined>;
}

/** Who is calling, once the token was judged against what the route needs. */
export type Caller<S extends TokenHolder = TokenHolder> =
  /** A public route: no token read. */
  | { readonly as: 'anyone' }
  /** The service token (or anyone, anonymous): reaches everything; `session` when one was named and found. */
  | { readonly as: 'service'; readonly session: S | undefined }
  /** The session's own token: drives that session. */
  | { readonly as: 'session'; readonly session: S }
  /** The session's view token: only watches it (docs/sessions.md#live-view). */
  | { readonly as: 'watcher'; readonly session: S };

/** A caller of a route about one session ('session' or 'view'). */
export type SessionCaller<S extends TokenHolder = TokenHolder> = Exclude<
  Caller<S>,
  { as: 'anyone' }
>;

/** A request that may not go on: its status, and the error it answers with (docs/errors.md). */
export interface Refusal {
  readonly refused: 400 | 401;
  readonly error: 'TOKEN_INVALID' | 'DISCOVERY_NEEDS_SESSION_TOKEN';
}

const INVALID: Refusal = { refused: 401, error: 'TOKEN_INVALID' };
// The service token names no session, and discovery at the root needs one.
const NAMES_NO_SESSION: Refusal = { refused: 400, error: 'DISCOVERY_NEEDS_SESSION_TOKEN' };
const ANYONE: Caller = { as: 'anyone' };

// What a request presents when its query names `token` twice or spelled otherwise (`%74oken`):
// matches no token, so it is refused as a wrong one would be.
const AMBIGUOUS = '';

/** The token a request presents: the bearer header first, else the `token` query parameter. */
export function presentedToken(request: TokenSource): string | undefined {
  const fromHeader = bearerToken(request.headers.authorization);
  if (fromHeader !== undefined) return fromHeader;
  const token = queryToken(request.url ?? '');
  return token === null ? AMBIGUOUS : token;
}

/** True for a caller that may drive its session: the service token or the session's own. */
export function drives(caller: Caller): boolean {
  return caller.as === 'service' || caller.as === 'session';
}

export class Authenticator {
  #sessions: SessionLookup | undefined;

  constructor(private readonly settings: AuthSettings) {}

  /** Where sessions are found; without it a 'session' route finds none. */
  useSessions(lookup: SessionLookup): void {
    this.#sessions = lookup;
  }

  /** True for the service token, or for anything when the service runs anonymous. */
  isService(token: string | undefined): boolean {
    if (this.settings.allowAnonymous) return true;
    const expected = this.settings.apiToken;
    return expected !== undefined && token !== undefined && tokensEqual(token, expected);
  }

  /** The caller of a route that needs `access`, its session being `id` when the path names one. */
  async decide(
    request: TokenSource,
    access: Access,
    id: string | undefined,
  ): Promise<Caller | Refusal> {
    if (access === 'public') return ANYONE;
    const token = presentedToken(request);
    if (access === 'service') {
      return this.isService(token) ? { as: 'service', session: undefined } : INVALID;
    }
    if (id !== undefined) return this.reach(token, access, await this.#sessions?.byId(id));
    const own = token === undefined ? undefined : await this.#sessions?.byOwnToken(token);
    if (own) return { as: 'session', session: own };
    return token !== undefined && this.isService(token) ? NAMES_NO_SESSION : INVALID;
  }

  /**
   * What `token` may do to the session a path names, found (or not) by the caller: the door and
   * cluster forwarding look sessions up themselves. An unknown session is refused like a wrong
   * token unless the service token asks, so nobody learns which sessions exist: 401 before 404.
   */
  reach<S extends TokenHolder>(
    token: string | undefined,
    access: 'session' | 'view',
    session: S | undefined,
  ): SessionCaller<S> | Refusal {
    if (this.isService(token)) return { as: 'service', session };
    const role = session && token !== undefined ? session.tokenRole(token) : undefined;
    if (session && role === 'own') return { as: 'session', session };
    if (session && role === 'view' && access === 'view') return { as: 'watcher', session };
    return INVALID;
  }
}

/** A route as it was declared: what the auth matrix test calls. */
export interface DeclaredRoute {
  method: string;
  url: string;
  access: Access;
}

/**
 * Installs the authentication on `app` before any route: a route that declares no `access` fails
 * to register (so the service does not start), and every request to a known route is judged
 * before its body is read or a later hook runs. Unknown routes answer 404 either way. `app.declaredRoutes` lists
 * the routes as they register (the auth matrix test calls each).
 */
export function installAuthentication(
  app: FastifyInstance,
  authenticator: Authenticator,
  hosts: PublicHosts,
): void {
  const declared: DeclaredRoute[] = [];
  app.decorate('declaredRoutes', declared);
  // Set by the hook below before any handler runs (null only on the way to a 404).
  app.decorateRequest('caller', null as never);
  app.addHook('onRoute', (route) => {
    const access = route.config?.access;
    const methods = [route.method].flat();
    if (!isAccess(access)) {
      throw new Error(
        `${methods.join(',')} ${route.url} declares no access: give it config.access ` +
          `('public', 'service', 'session' or 'view'; docs/architecture.md#who-may-call-render)`,
      );
    }
    for (const method of methods) declared.push({ method, url: route.url, access });
  });
  app.addHook('onRequest', async (request) => {
    const { access, ownPagesOnly } = request.routeOptions.config;
    if (request.is404 || access === undefined) return;
    const foreign = ownPagesOnly ? originRefusal(request.raw, hosts) : undefined;
    if (foreign !== undefined) throw renderErrors.error('HOST_REFUSED', { reason: foreign });
    const { id } = request.params as { id?: string };
    const caller = await authenticator.decide(request.raw, access, id);
    if ('refused' in caller) throw renderErrors.error(caller.error);
    request.caller = caller;
  });
}
