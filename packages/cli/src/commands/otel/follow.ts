// --follow (docs/cli.md#follow): print the recent rows, then poll for rows that arrive later, until
// Ctrl-C (exit 0). The watermark is the service's ingestion time, not the rows' timestamps: a row
// that arrives late (its timestamp long past) still has a new ingestion time. Each poll reads from
// a little before the watermark, because a row can become visible to queries after rows with a
// later ingestion time; rows read twice are recognised by their itemId and printed once.
import { setTimeout as sleep } from 'node:timers/promises';
import { accessTokenFor } from '../../auth/access-token.js';
import type { CliContext } from '../../context.js';
import { CliError } from '../../errors.js';
import { INGESTED, type ListMode } from '../../kql/queries.js';
import { windowBounds } from '../../kql/since.js';
import { streamHeader, streamRows } from '../../output/stream-rows.js';
import type { RowView } from '../../output/view.js';
import type { Row } from '../../upstream/coerce.js';
import { runQuery } from '../../upstream/query-client.js';
import type { QueryResult } from '../../upstream/query-client.js';
import type { OtelPlan } from './run-otel.js';
import type { Target } from './target.js';

/** How far before the watermark each poll reads again. */
export const OVERLAP_MS = 5 * 60_000;

export interface Follow {
  readonly queryFor: (mode: ListMode) => string;
  readonly intervalMs: number;
}

export interface FollowPlan extends OtelPlan {
  readonly view: RowView;
  readonly follow: Follow;
}

/** After the first query (`result`): print it, then poll until Ctrl-C. */
export async function followOn(
  ctx: CliContext,
  p: FollowPlan,
  target: Target,
  result: QueryResult,
): Promise<void> {
  const signal = ctx.interrupted();
  // A function, not the property: the flag changes under the awaits below.
  const stopped = () => signal.aborted;
  const since = windowBounds(p.window, ctx.now()).from;
  const seen = new Map<string, number>();
  let watermark = Date.parse(since);
  const emit = (rows: readonly Row[]) => {
    const fresh: Row[] = [];
    for (const row of rows) {
      const ingested = Date.parse(typeof row[INGESTED] === 'string' ? row[INGESTED] : '');
      const key = typeof row.itemId === 'string' ? row.itemId : JSON.stringify(row);
      if (seen.has(key)) continue;
      seen.set(key, Number.isNaN(ingested) ? watermark : ingested);
      if (ingested > watermark) watermark = ingested;
      fresh.push(row);
    }
    for (const [key, ingested] of seen) {
      if (ingested < watermark - 2 * OVERLAP_MS) seen.delete(key);
    }
    if (fresh.length > 0) ctx.stdout.write(streamRows(p.format, p.view, fresh, ctx.color));
  };
  ctx.stdout.write(streamHeader(p.format, p.view));
  if (p.format === 'table' && result.rows.length === 0) {
    ctx.stderr.write(`No ${p.view.noun} in the ${p.window.text} yet; waiting (Ctrl-C stops).\n`);
  }
  // The first answer is newest first (it is the --limit most recent rows); a tail reads down.
  emit([...result.rows].reverse());
  let announced = false;
  while (!stopped()) {
    try {
      await sleep(p.follow.intervalMs, undefined, { signal });
    } catch {
      return;
    }
    const query = p.follow.queryFor({
      kind: 'follow-poll',
      after: new Date(watermark - OVERLAP_MS).toISOString(),
      since,
    });
    if (p.verbose && !announced) {
      ctx.stderr.write(
        `Following every ${String(p.follow.intervalMs / 1000)} s (Ctrl-C stops), polling with:\n${query}\n`,
      );
      announced = true;
    }
    try {
      const accessToken = await accessTokenFor(ctx, target.apiUrl);
      const polled = await runQuery(
        {
          target,
          accessToken,
          query,
          // The query bounds time itself; a timespan would end at the service's "now" and
          // exclude nothing the query does not.
          timespan: undefined,
          verbose: p.verbose,
          signal,
        },
        ctx,
      );
      emit(polled.rows);
    } catch (error) {
      if (stopped()) return;
      if (error instanceof CliError && error.transient) {
        const first = error.message.split('\n')[0] ?? '';
        ctx.stderr.write(`Warning: ${first} Still following; the next poll catches up.\n`);
        continue;
      }
      throw error;
    }
  }
}
