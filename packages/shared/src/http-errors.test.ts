import { fastify, type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpError, installErrorHandler } from './http-errors.js';

describe('installErrorHandler', () => {
  let app: FastifyInstance;
  let base: string;

  beforeAll(async () => {
    app = fastify({ logger: false, bodyLimit: 64 });
    installErrorHandler(app);
    app.post(
      '/things',
      {
        schema: {
          body: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
        },
      },
      () => ({ ok: true }),
    );
    app.get('/teapot', () => {
      throw new HttpError(418, 'short and stout');
    });
    app.get('/coded', () => {
      throw new HttpError(404, 'thing 7 not found', 'TEST_THING_NOT_FOUND');
    });
    app.get('/boom', () => {
      throw new Error('secret internals at /etc/x');
    });
    base = await app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(() => app.close());

  const post = (body: string, type = 'application/json') =>
    fetch(`${base}/things`, { method: 'POST', headers: { 'content-type': type }, body });

  it('answers an HttpError with its status and message only', async () => {
    const res = await fetch(`${base}/teapot`);
    expect(res.status).toBe(418);
    expect(await res.json()).toEqual({ error: 'short and stout' });
  });

  it("names a catalogue error's code in the Havn-Error-Code header, the body unchanged", async () => {
    const coded = await fetch(`${base}/coded`);
    expect(coded.headers.get('havn-error-code')).toBe('TEST_THING_NOT_FOUND');
    expect(await coded.json()).toEqual({ error: 'thing 7 not found' });
    expect((await fetch(`${base}/teapot`)).headers.get('havn-error-code')).toBeNull();
  });

  it('names the field of a validation error', async () => {
    const res = await post('{"name": {}}');
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'body/name must be string' });
  });

  it('keeps the status of malformed, oversized and non-JSON bodies', async () => {
    expect((await post('{"name":')).status).toBe(400);
    expect((await post(JSON.stringify({ name: 'x'.repeat(100) }))).status).toBe(413);
    const res = await post('name=x', 'application/x-www-form-urlencoded');
    expect(res.status).toBe(415);
    expect(Object.keys((await res.json()) as object)).toEqual(['error']);
  });

  it('hides internals of unknown errors behind a 500', async () => {
    const res = await fetch(`${base}/boom`);
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ error: 'internal server error' });
  });

  it('answers unknown routes 404 without echoing the query', async () => {
    const res = await fetch(`${base}/nope?token=abc`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: 'no route GET /nope' });
  });
});
