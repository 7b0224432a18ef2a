import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { ErrorBody } from '../schemas/render.schema.js';
import type { PublicHosts } from '../public-hosts.js';
import type { App } from '../server-context.js';
import { isInternalUrl } from './door/cdp-targets.js';
import { calledSession, doorUrl } from './session-urls.js';

// HTTP discovery, as Chromium serves it on its own debugging port, for clients that find the
// browser that way: Playwright's connectOverCDP with an http URL (the session's or the service
// root, with the session token in a header), chrome-remote-interface (/json/list, then a page's
// socket). Every socket in the answers is the door's, with the session's own token
// (docs/sessions.md#connecting-a-cdp-client).

const PATHS = ['json/version', 'json/list', 'json', 'json/protocol'] as const;

// Chromium's own answers, with every socket the door's. The version and the protocol stay open:
// what a newer browser adds to them passes through.
const Target = Type.Object({
  id: Type.String(),
  type: Type.String(),
  title: Type.String(),
  url: Type.String(),
  description: Type.String(),
  webSocketDebuggerUrl: Type.String({ description: "The door's socket for this page." }),
});
const Targets = Type.Array(Target, { description: 'The open pages.' });
const ANSWERS = {
  'json/version': Type.Object(
    {
      Browser: Type.String(),
      'Protocol-Version': Type.String(),
      'User-Agent': Type.String(),
      webSocketDebuggerUrl: Type.String({ description: "The door's socket for the browser." }),
    },
    { additionalProperties: true },
  ),
  'json/list': Targets,
  json: Targets,
  'json/protocol': Type.Object(
    { version: Type.Unknown(), domains: Type.Array(Type.Unknown()) },
    { additionalProperties: true, description: 'Every domain, command and event it speaks.' },
  ),
};

export function discoveryRoutes(app: App, hosts: PublicHosts): void {
  const version = async (request: FastifyRequest) => {
    const session = calledSession(request);
    const own = await session.browser.versionInfo();
    const token = session.doorToken();
    return { ...own, webSocketDebuggerUrl: doorUrl(request, hosts, session.id, token) };
  };
  const list = async (request: FastifyRequest) => {
    const session = calledSession(request);
    const token = session.doorToken();
    return (await session.browser.targets())
      .filter((t) => t.type === 'page' && !isInternalUrl(t.url))
      .map((t) => ({
        id: t.id,
        type: t.type,
        title: t.title,
        url: t.url,
        description: t.description ?? '',
        webSocketDebuggerUrl: doorUrl(request, hosts, session.id, token, t.id),
      }));
  };
  const protocol = async (request: FastifyRequest) => calledSession(request).browser.protocol();
  const handlers = {
    'json/version': version,
    'json/list': list,
    json: list,
    'json/protocol': protocol,
  };
  // The session's own token is good here too: it is the one a client was handed.
  const config = { access: 'session' } as const;
  for (const prefix of ['/v1/sessions/:id/', '/']) {
    for (const path of PATHS) {
      // At the service root, the service token is refused: it names no session.
      const response = { 200: ANSWERS[path], ...(prefix === '/' && { 400: ErrorBody }) };
      const schema = {
        ...(prefix !== '/' && { params: Type.Object({ id: Type.String() }) }),
        response,
      };
      for (const slash of ['', '/']) {
        try {
          app.get(`${prefix}${path}${slash}`, { config, schema }, handlers[path]);
        } catch {
          // A server that ignores trailing slashes serves both spellings from the first.
        }
      }
    }
  }
}
