import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, redactUrl } from './logger.js';

describe('logger', () => {
  it('never writes a token or an authorization header', () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const log = createLogger({ name: 'test', destination });
    log.info(
      {
        req: {
          method: 'GET',
          url: '/v1/artifacts/a?x=1&token=hunter2',
          headers: { authorization: 'Bearer hunter2' },
        },
      },
      'request',
    );
    log.info({ token: 'hunter2', webhook: { secret: 'hunter2' } }, 'minted');
    const out = lines.join('');
    expect(out).not.toContain('hunter2');
    expect(JSON.parse(lines[0] ?? '{}')).toMatchObject({
      name: 'test',
      req: { method: 'GET', url: '/v1/artifacts/a?x=1&token=[redacted]' },
    });
  });

  it('redacts token query parameters anywhere in a URL', () => {
    expect(redactUrl('/a?token=x')).toBe('/a?token=[redacted]');
    expect(redactUrl('/a?b=1&TOKEN=x&c=2')).toBe('/a?b=1&TOKEN=[redacted]&c=2');
    expect(redactUrl('/a?mytoken=x')).toBe('/a?mytoken=x');
  });

  it('redacts every spelling of token, judged on the parsed query', () => {
    expect(redactUrl('/a?%74oken=x')).toBe('/a?%74oken=[redacted]');
    expect(redactUrl('/a?b=1&%54%4f%4b%45%4e=x&token=y#f')).toBe(
      '/a?b=1&%54%4f%4b%45%4e=[redacted]&token=[redacted]#f',
    );
    expect(redactUrl('/a?to%6Ben=x&c=%74oken')).toBe('/a?to%6Ben=[redacted]&c=%74oken');
  });
});
