import { Agent, get } from 'node:http';
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { closeKeepAliveOnClose } from './lifecycle.js';

const agents: Agent[] = [];
afterEach(() => {
  for (const agent of agents.splice(0)) agent.destroy();
});

/** A server whose one route answers after `delayMs`, and a keep-alive client's request to it. */
async function slowRequestInFlight() {
  const app = Fastify();
  closeKeepAliveOnClose(app);
  app.get('/slow', async () => {
    await new Promise((resolve) => setTimeout(resolve, 300));
    return { ok: true };
  });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  const agent = new Agent({ keepAlive: true });
  agents.push(agent);
  const answered = new Promise<number>((resolve, reject) => {
    get(`${url}/slow`, { agent }, (res) => {
      res.resume();
      res.on('end', () => {
        resolve(res.statusCode ?? 0);
      });
    }).on('error', reject);
  });
  // The request is being handled when close() starts.
  await new Promise((resolve) => setTimeout(resolve, 100));
  return { app, answered };
}

/** How long `app.close()` takes, or Infinity when it has not finished within `withinMs`. */
async function closeTime(app: { close(): Promise<unknown> }, withinMs: number): Promise<number> {
  const started = Date.now();
  const finished = await Promise.race([
    app.close().then(() => true),
    new Promise<false>((resolve) =>
      setTimeout(() => {
        resolve(false);
      }, withinMs),
    ),
  ]);
  return finished ? Date.now() - started : Infinity;
}

describe('closing with a keep-alive request in flight', () => {
  // Without the guard, this close() waits the 72 s of Fastify's keep-alive timeout.
  it('answers the request and closes as soon as it has', async () => {
    const { app, answered } = await slowRequestInFlight();
    const took = await closeTime(app, 5_000);
    expect(await answered).toBe(200);
    expect(took).toBeLessThan(5_000);
  });
});
