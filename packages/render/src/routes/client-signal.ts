import type { FastifyReply } from 'fastify';

/**
 * An AbortSignal that fires when the client goes away before its answer is written, so a queued
 * or running render frees its slot (issue 3: a client that disconnects frees its slot).
 */
export function clientSignal(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort(new Error('client disconnected'));
  });
  return controller.signal;
}
