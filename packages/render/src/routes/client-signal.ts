import type { FastifyReply } from 'fastify';

/**
 * An AbortSignal that fires when the client goes away before its answer is written, so a queued
 * or running render frees its slot (docs/render.md#behaviour-in-detail).
 */
export function clientSignal(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort(new Error('client disconnected'));
  });
  return controller.signal;
}
