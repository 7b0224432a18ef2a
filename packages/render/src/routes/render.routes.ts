import { HttpError } from '@havn/shared';
import { renderErrors } from '../errors.js';
import {
  BatchBody,
  BatchResult,
  PAGE_ERRORS,
  RenderBody,
  RenderResult,
} from '../schemas/render.schema.js';
import { STATE_ERRORS } from '../schemas/state.schema.js';
import type { App } from '../server-context.js';
import { prepareOptions, renderProfile, type RenderLimits } from '../services/render-options.js';
import type { RenderService } from '../services/render-service.js';
import { clientSignal } from './client-signal.js';

/** POST /v1/render and POST /v1/render/batch (docs/render.md#post-v1render). */
export function renderRoutes(app: App, service: RenderService, limits: RenderLimits): void {
  app.post(
    '/v1/render',
    {
      config: { access: 'service' },
      schema: {
        body: RenderBody,
        response: { 200: RenderResult, ...PAGE_ERRORS, ...STATE_ERRORS },
      },
    },
    async (request, reply) => {
      const signal = clientSignal(reply);
      const { profile: profileInput, ...rest } = request.body;
      const prepared = prepareOptions(rest, limits);
      const profile = renderProfile(profileInput, 'profile', prepared, limits);
      await service.checkTarget(prepared);
      const options = await service.withState(prepared);
      const rendered = await service.render(options, profile, signal);
      const common = {
        profile: profile.name,
        contentType: rendered.contentType,
        bytes: rendered.buffer.length,
        ms: rendered.ms,
      };
      if (options.returnMode === 'base64') {
        return { ...common, base64: rendered.buffer.toString('base64') };
      }
      return { ...common, artifact: await service.store(rendered, options.labels) };
    },
  );

  app.post(
    '/v1/render/batch',
    {
      config: { access: 'service' },
      schema: { body: BatchBody, response: { 200: BatchResult, ...PAGE_ERRORS, ...STATE_ERRORS } },
    },
    async (request, reply) => {
      const signal = clientSignal(reply);
      const { profiles: inputs, ...rest } = request.body;
      const prepared = prepareOptions(rest, limits);
      // The batch slot shape is { profile, artifact, ms }: no base64 form.
      if (prepared.returnMode === 'base64') {
        throw renderErrors.error('BASE64_NOT_IN_BATCH');
      }
      // Every profile is validated before any work starts (docs/render.md#post-v1renderbatch).
      const profiles = inputs.map((p, i) => renderProfile(p, `profiles[${i}]`, prepared, limits));
      await service.checkTarget(prepared);
      const options = await service.withState(prepared);
      const results = await Promise.all(
        profiles.map(async (profile) => {
          try {
            const rendered = await service.render(options, profile, signal);
            const artifact = await service.store(rendered, options.labels);
            return { profile: profile.name, artifact, ms: rendered.ms };
          } catch (err) {
            if (signal.aborted) throw err;
            // A failure occupies its own slot and never affects the others.
            const message = err instanceof HttpError ? err.message : 'internal error';
            return { profile: profile.name, error: message };
          }
        }),
      );
      return { results };
    },
  );
}
