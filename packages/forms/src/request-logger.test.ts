import { Writable } from 'node:stream';
import { createLogger } from '@havn/shared';
import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions } from 'pino';
import { expect, test } from 'vitest';
import { lazyRequestLogger } from './request-logger.js';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { log: createLogger({ name: 'forms-test', destination }), lines };
}

test('a request logger writes with its request id and the parent logger settings', () => {
  const { log, lines } = capture();
  const requestLog = lazyRequestLogger(log, { reqId: 'req-7' }, {});
  requestLog.error({ err: new Error('boom'), secret: 'whsec_x' }, 'unhandled error');
  requestLog.debug('below the level: not written');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatchObject({
    level: 50,
    name: 'forms-test',
    reqId: 'req-7',
    msg: 'unhandled error',
    secret: '[redacted]',
    err: { message: 'boom' },
  });
  expect(requestLog.level).toBe('info');
  requestLog.child({ delivery: 'msg_1' }).warn('retrying');
  expect(lines[1]).toMatchObject({ reqId: 'req-7', delivery: 'msg_1', msg: 'retrying' });
});

test('a request that logs nothing makes no child logger', () => {
  const { log } = capture();
  let children = 0;
  const counting = Object.create(log, {
    child: {
      value: (bindings: Bindings, options?: ChildLoggerOptions) => {
        children++;
        return log.child(bindings, options);
      },
    },
  }) as FastifyBaseLogger;
  for (let i = 0; i < 100; i++) lazyRequestLogger(counting, { reqId: `req-${String(i)}` }, {});
  expect(children).toBe(0);
  lazyRequestLogger(counting, { reqId: 'req-x' }, {}).info('one line');
  expect(children).toBe(1);
});
