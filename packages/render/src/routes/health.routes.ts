import { Type } from 'typebox';
import type { App } from '../server-context.js';
import type { RenderQueue } from '../services/render-queue.js';

const Health = Type.Object({
  ok: Type.Boolean(),
  version: Type.String(),
  sessions: Type.Integer({ description: 'Live browser sessions.' }),
  renders: Type.Object({
    inFlight: Type.Integer({ description: 'Renders running.' }),
    queued: Type.Integer({ description: 'Renders waiting for a slot: the figure to alert on.' }),
  }),
  uptimeSec: Type.Integer(),
});

/** GET /healthz (docs/render.md#get-healthz): unauthenticated. */
export function healthRoutes(
  app: App,
  opts: { version: string; queue: RenderQueue; sessionCount: () => number },
): void {
  const started = Date.now();
  app.get('/healthz', { config: { public: true }, schema: { response: { 200: Health } } }, () => ({
    ok: true,
    version: opts.version,
    sessions: opts.sessionCount(),
    renders: { inFlight: opts.queue.inFlight, queued: opts.queue.queued },
    uptimeSec: Math.floor((Date.now() - started) / 1000),
  }));
}
