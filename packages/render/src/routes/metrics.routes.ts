import type { App } from '../server-context.js';
import type { RenderMetrics } from '../services/render-metrics.js';

/** GET /metrics: Prometheus text format, authenticated like every route but /healthz. */
export function metricsRoutes(app: App, metrics: RenderMetrics): void {
  app.get(
    '/metrics',
    { config: { access: 'service' }, schema: { hide: true } },
    async (_request, reply) =>
      reply.type(metrics.registry.contentType).send(await metrics.registry.metrics()),
  );
}
