import { request } from 'node:http';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Authenticator, installAuthentication, type DeclaredRoute } from './auth.js';
import { LOOPBACK_ONLY } from './public-hosts.js';
import { sessionsExtension } from './sessions/sessions-extension.js';
import { startService, TEST_TOKEN, type TestService } from './test-support/service.js';

// docs/architecture.md#who-may-call-render: who may call what. Every route the service registers
// (as main.ts composes it, browser sessions included) is called by each kind of caller, and each
// answer must be what the route's declared access allows. The rows are the app's own route list,
// so a route added later is called too, and a route that declares nothing never starts.

/** The callers: the service token, session A's own, B's own, A's view token, and none. */
type Who = 'service' | 'own' | 'other' | 'viewer' | 'none';
const WHO: readonly Who[] = ['service', 'own', 'other', 'viewer', 'none'];

const REFUSED = { error: 'missing or invalid token' };
const ROOT_NEEDS_SESSION =
  'discovery at the service root needs a session token; with the service token ask /v1/sessions/<id>/json/version';

/** Who a route admits: its declared access, and whether its path names the session. */
function admits(route: DeclaredRoute, who: Who): boolean {
  const named = route.url.includes(':id');
  switch (route.access) {
    case 'public':
      return true;
    case 'service':
      return who === 'service';
    case 'session':
      // Without an id in the path, a session's own token names its session: any session's.
      return named ? who === 'service' || who === 'own' : who === 'own' || who === 'other';
    case 'view':
      return who === 'service' || who === 'own' || who === 'viewer';
  }
}

describe('who may call each route', () => {
  let svc: TestService;
  const a = { id: '', token: '', view: '' };
  const b = { id: '', token: '' };
  const tokens = (): Record<Who, string | undefined> => ({
    service: TEST_TOKEN,
    own: a.token,
    other: b.token,
    viewer: a.view,
    none: undefined,
  });

  beforeAll(async () => {
    svc = await startService({ MAX_SESSIONS: '2' }, { extensions: [sessionsExtension()] });
    for (const session of [a, b]) {
      const opened = await svc.post('/v1/sessions', {});
      expect(opened.status).toBe(201);
      const { id, cdpUrl, watchUrl } = opened.body as Record<string, string>;
      session.id = id ?? '';
      session.token = new URL(cdpUrl ?? '').searchParams.get('token') ?? '';
      if (session === a) a.view = new URL(watchUrl ?? '').searchParams.get('token') ?? '';
    }
  }, 60_000);

  afterAll(async () => {
    await svc.close();
  });

  it('lists every route with what it declared, sessions, discovery and the live view included', () => {
    const declared = svc.app.declaredRoutes;
    const find = (method: string, url: string) =>
      declared.find((r) => r.method === method && r.url === url)?.access;
    expect(find('GET', '/healthz')).toBe('public');
    expect(find('POST', '/v1/render')).toBe('service');
    expect(find('DELETE', '/v1/sessions/:id')).toBe('service');
    expect(find('GET', '/v1/sessions/:id/json/version')).toBe('session');
    expect(find('GET', '/json/list')).toBe('session');
    expect(find('GET', '/v1/sessions/:id/live')).toBe('view');
    expect(declared.length).toBeGreaterThan(40);
  });

  it('answers each caller of each route as its declared access says', async () => {
    const problems: string[] = [];
    for (const [index, route] of svc.app.declaredRoutes.entries()) {
      for (const who of WHO) {
        const token = tokens()[who];
        // The service token would change what it reaches: on a service route it names a
        // session that does not exist (404), so nothing is deleted or touched.
        const id =
          route.url.startsWith('/v1/artifacts/') ||
          (who === 'service' && route.access === 'service')
            ? 'AAAAAAAAAAAAAAAAAAAAAA'
            : a.id;
        const path = route.url.replace(':id', id);
        // Half the rows send the token as `?token=`, the others as a bearer header.
        const query = token !== undefined && index % 2 === 1;
        const url = `${svc.base}${path}${query ? `?token=${encodeURIComponent(token)}` : ''}`;
        const headers = new Headers();
        if (token !== undefined && !query) headers.set('authorization', `Bearer ${token}`);
        // A body no route takes (not an object): an admitted POST answers 400 and changes nothing.
        const post = route.method === 'POST' || route.method === 'PUT';
        if (post) headers.set('content-type', 'application/json');
        const res = await fetch(url, {
          method: route.method,
          headers,
          ...(post && { body: '[]' }),
        });
        const text = await res.text();
        const row = `${route.method} ${route.url} (${route.access}) by ${who}`;
        // The service token names no session at the root: 400, not 401.
        const root = who === 'service' && route.access === 'session' && !route.url.includes(':id');
        const refusal = root
          ? { status: 400, error: ROOT_NEEDS_SESSION }
          : { status: 401, ...REFUSED };
        const body = route.method === 'HEAD' ? '' : JSON.stringify({ error: refusal.error });
        if (!root && admits(route, who)) {
          if (res.status === 401) problems.push(`${row}: refused`);
        } else if (res.status !== refusal.status || text !== body) {
          problems.push(
            `${row}: ${String(res.status)} ${text.slice(0, 100)}, not ${String(refusal.status)}`,
          );
        }
      }
    }
    expect(problems).toEqual([]);
  }, 60_000);

  it('opens the CDP door, an upgrade and no route, to the same callers as the live view', async () => {
    const upgrade = (who: Who) =>
      new Promise<number>((resolve, reject) => {
        const token = tokens()[who];
        const query = token === undefined ? '' : `?token=${encodeURIComponent(token)}`;
        const req = request(`${svc.base}/v1/sessions/${a.id}/cdp${query}`, {
          headers: {
            connection: 'Upgrade',
            upgrade: 'websocket',
            'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
            'sec-websocket-version': '13',
          },
        });
        req.on('upgrade', (_res, socket) => {
          socket.destroy();
          resolve(101);
        });
        req.on('response', (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end();
      });
    const answers: Record<string, number> = {};
    for (const who of WHO) answers[who] = await upgrade(who);
    expect(answers).toEqual({ service: 101, own: 101, other: 401, viewer: 101, none: 401 });
  });
});

describe('a route that declares no access', () => {
  it('keeps the app from starting, naming the route', async () => {
    const app = Fastify({ logger: false });
    installAuthentication(
      app,
      new Authenticator({ apiToken: 'secret', allowAnonymous: false }),
      LOOPBACK_ONLY,
    );
    // As the sessions extension registers its routes: in a plugin.
    void app.register(async (scope) => {
      scope.get('/v1/undeclared', () => 'open to all?');
      await Promise.resolve();
    });
    await expect(app.ready()).rejects.toThrow(/GET \/v1\/undeclared declares no access/);
    await app.close().catch(() => undefined);
  });
});
