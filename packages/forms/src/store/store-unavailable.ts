import type { Unavailable } from '@havn/shared';

// Failures that mean the store is out of reach for a moment, not that a request or the code is
// wrong (docs/operations.md): PostgreSQL restarting, failing over or refusing connections, and a
// data disk that is full. They answer 503 with Retry-After; anything else stays a 500.

/** Node's socket errors and PostgreSQL's connection and shutdown SQLSTATEs (class 08, 57P0x). */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  '57P01', // admin_shutdown: a fast restart or pg_terminate_backend
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: starting up or shutting down
  '53300', // too_many_connections
]);
/** node-postgres says these in words only. */
const CONNECTION_MESSAGES =
  /Connection terminated|not queryable|timeout exceeded when trying to connect|connection timeout/i;
/** A full disk, from the filesystem or from SQLite. */
const FULL_CODES = new Set(['ENOSPC', 'EDQUOT', 'SQLITE_FULL']);

function codesOf(err: unknown): string[] {
  const codes: string[] = [];
  for (let e = err, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') codes.push(code);
  }
  return codes;
}

function messagesOf(err: unknown): string {
  const parts: string[] = [];
  for (let e = err, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    parts.push(e.message);
  }
  return parts.join(' / ');
}

/** How long a client should wait before trying again: a restart or a failover takes seconds. */
const RETRY_AFTER_SECONDS = 2;

/** The 503 for `err` when it is the store out of reach; undefined for anything else. */
export function storeUnavailable(err: unknown): Unavailable | undefined {
  const codes = codesOf(err);
  if (codes.some((c) => FULL_CODES.has(c)) || /database or disk is full/i.test(messagesOf(err))) {
    return { message: 'the data disk is full; try again later', retryAfterSeconds: 30 };
  }
  if (
    codes.some((c) => CONNECTION_CODES.has(c) || c.startsWith('08')) ||
    CONNECTION_MESSAGES.test(messagesOf(err))
  ) {
    return {
      message: 'the database is unavailable; try again shortly',
      retryAfterSeconds: RETRY_AFTER_SECONDS,
    };
  }
  return undefined;
}
