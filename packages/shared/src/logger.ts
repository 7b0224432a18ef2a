import { pino, type Logger, type LevelWithSilent } from 'pino';

export type { Logger } from 'pino';
import { redactTokens } from './token.js';

/**
 * Replaces the value of any `token` query parameter so URLs can be logged: judged on the parsed
 * query, so `%74oken=` and `TOKEN=` are redacted as `token=` is.
 */
export function redactUrl(url: string): string {
  return redactTokens(url);
}

/**
 * The JSON logger both services use: one line per event, secrets redacted. Request logs carry
 * method, the URL with `token` redacted, status and milliseconds; never a header value.
 */
export function createLogger(options: {
  name: string;
  level?: LevelWithSilent;
  destination?: NodeJS.WritableStream;
}): Logger {
  return pino(
    {
      name: options.name,
      level: options.level ?? 'info',
      redact: {
        paths: [
          'req.headers.authorization',
          'req.headers.cookie',
          'headers.authorization',
          'token',
          '*.token',
          'secret',
          '*.secret',
        ],
        censor: '[redacted]',
      },
      serializers: {
        req: (req: { method?: string; url?: string }) => ({
          method: req.method,
          url: redactUrl(req.url ?? ''),
        }),
        res: (res: { statusCode?: number }) => ({ status: res.statusCode }),
        err: pino.stdSerializers.err,
      },
    },
    options.destination ?? process.stdout,
  );
}
