import { existsSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyReply } from 'fastify';
import type { App, RouteDeps } from './app.js';
import { hostedCsp, INBOX_CSP } from './page-headers.js';

const placeholder = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>Havn forms</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 3rem auto; padding: 0 1rem">
<h1>Havn forms</h1>
<p>The forms server is running. The web app has not been built yet: run <code>npm run setup</code>
(or set <code>WEB_DIR</code> to a built web app).</p>
<p>The API lives under <code>/api</code>; see <code>/api/health</code>.</p>
</body></html>
`;

/**
 * Everything outside /api comes from WEB_DIR (docs/forms.md#push-service-web-app);
 * `/f/<org>/<form>` is the hosted form page. When the web app is not built, `/` and the hosted
 * page answer a small placeholder. The forms-web build writes .br and .gz twins of its text
 * assets; preCompressed sends the one the client accepts, falling back to the plain file.
 */
export async function registerWebRoutes(app: App, deps: RouteDeps): Promise<void> {
  const root = deps.config.webDir;
  const haveRoot = existsSync(root);
  if (haveRoot) {
    await app.register(fastifyStatic, {
      root,
      index: false,
      wildcard: true,
      cacheControl: true,
      preCompressed: true,
    });
  }
  const page = (file: string, reply: FastifyReply) => {
    if (haveRoot && existsSync(join(root, file))) {
      return reply.header('cache-control', 'no-cache').sendFile(file);
    }
    return reply.type('text/html; charset=utf-8').send(placeholder);
  };
  /** docs/forms.md#page-headers: framed only where the form's answers may come from. */
  const framedBy = async (params: unknown, reply: FastifyReply) => {
    const { org, form } = params as { org: string; form: string };
    const gate = await deps.publicForms.gateForm(org, form).catch(() => undefined);
    reply.header('content-security-policy', hostedCsp(gate?.allowedOrigins));
    return { org, form };
  };
  // Every other page (the inbox at / and as /index.html, the placeholders): the inbox's policy.
  app.addHook('onSend', async (_request, reply, payload) => {
    const type = reply.getHeader('content-type');
    if (
      typeof type === 'string' &&
      type.startsWith('text/html') &&
      !reply.hasHeader('content-security-policy')
    ) {
      reply.header('content-security-policy', INBOX_CSP);
    }
    return payload;
  });
  app.get('/', async (_request, reply) => page('index.html', reply));
  app.get('/f/:org/:form', async (request, reply) => {
    await framedBy(request.params, reply);
    return page(join('f', 'index.html'), reply);
  });
  // docs/forms.md#plain-html-posts: where a plain HTML post lands when its form has no redirectUrl.
  app.get('/f/:org/:form/thanks', async (request, reply) => {
    const { org, form } = await framedBy(request.params, reply);
    const stored = await deps.publicForms.currentDefinition(org, form).catch(() => undefined);
    const thanks = stored?.definition.thanks;
    const text =
      typeof thanks === 'string' && thanks !== '' ? thanks : 'Thank you. We got your answers.';
    return reply.type('text/html; charset=utf-8').send(thanksPage(text));
  });
}

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => `&#${String(c.charCodeAt(0))};`);

function thanksPage(text: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>Thank you</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 3rem auto; padding: 0 1rem">
<h1>Thank you</h1>
<p>${escapeHtml(text)}</p>
</body></html>
`;
}
